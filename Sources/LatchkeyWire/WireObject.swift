import LatchkeyContract
import LatchkeyJSON
import LatchkeyRPC

/// A Swift type written as a JSON object (a result, or a part of one): its members, in the order they are written, each read from the value by a
/// key path.
///
/// The list drives writing and the schema. What is read from params is a `WireParams`.
public protocol WireObject: Sendable {
    static var fields: [WireField<Self>] { get }
    /// A name in `components.schemas`, or nil to spell the shape out where it is used.
    static var schemaName: String? { get }
}

extension WireObject {
    public static var schemaName: String? { nil }
}

/// An empty result, `{}`.
public struct EmptyResult: WireObject {
    public init() {}
    public static let fields: [WireField<EmptyResult>] = []
}

/// One member of a written object: its name, whether it is always there, its schema and how it is written from the Swift value.
public struct WireField<Root>: Sendable {
    public let name: String
    public let required: Bool
    public let summary: String
    public let schema: Schema
    let write: @Sendable (Root, inout JSONObject) -> Void

    /// A member that is always written.
    public static func required<V>(_ name: String, _ keyPath: KeyPath<Root, V> & Sendable, _ codec: Codec<V>, _ summary: String = "") -> WireField {
        WireField(
            name: name, required: true, summary: summary, schema: codec.schema,
            write: { root, object in object.appendUnchecked(name, codec.write(root[keyPath: keyPath])) })
    }

    /// A member written only when set.
    public static func optional<V>(_ name: String, _ keyPath: KeyPath<Root, V?> & Sendable, _ codec: Codec<V>, _ summary: String = "") -> WireField {
        WireField(
            name: name, required: false, summary: summary, schema: codec.schema,
            write: { root, object in
                if let value = root[keyPath: keyPath] { object.appendUnchecked(name, codec.write(value)) }
            })
    }

    /// A member always written, from a value the type computes.
    public static func computed<V>(_ name: String, _ keyPath: KeyPath<Root, V> & Sendable, _ codec: Codec<V>, _ summary: String = "") -> WireField {
        .required(name, keyPath, codec, summary)
    }

    /// A member that is always there and may be null.
    public static func nullable<V>(_ name: String, _ keyPath: KeyPath<Root, V?> & Sendable, _ codec: Codec<V>, _ summary: String = "") -> WireField {
        .required(name, keyPath, .nullable(codec), summary)
    }

    /// This member as a member of an outer value that holds this one's root at `keyPath`.
    public func lifted<Outer>(_ keyPath: KeyPath<Outer, Root> & Sendable) -> WireField<Outer> {
        let write = self.write
        return WireField<Outer>(
            name: name, required: required, summary: summary, schema: schema, write: { outer, object in write(outer[keyPath: keyPath], &object) })
    }
}

extension Array {
    /// The schema of an object with these members.
    func objectSchema<Root>() -> Schema where Element == WireField<Root> {
        .object(map { Field($0.name, $0.schema, required: $0.required, $0.summary) })
    }

    /// Writes `root` as an object with these members, in this order.
    func write<Root>(_ root: Root) -> JSON where Element == WireField<Root> {
        var object = JSONObject()
        for field in self { field.write(root, &object) }
        return .object(object)
    }
}

extension WireObject {
    /// The schema of the object's members.
    public static var objectSchema: Schema {
        let shape = fields.objectSchema()
        return schemaName.map { .named($0, shape) } ?? shape
    }

    /// Writes the object, members in declaration order.
    public func wireJSON() -> JSON { Self.fields.write(self) }
}

extension Codec {
    /// `{name: value}`: an object of one member, read and written as that member's value.
    public static func member(_ name: String, _ codec: Codec<Value>, _ summary: String = "") -> Codec<Value> {
        Codec(
            schema: .object([Field(name, codec.schema, required: true, summary)]),
            read: { json, path, problems in
                guard let object = json.object(at: path, into: &problems) else { return nil }
                let memberPath = path.isEmpty ? name : "\(path).\(name)"
                guard let member = object[name] else {
                    problems.append(ParamProblem(memberPath, "is required"))
                    return nil
                }
                return codec.read(member, memberPath, &problems)
            },
            write: { .object(JSONObject(uniqueEntries: [.init(key: name, value: codec.write($0))])) })
    }

    /// A wire object that is only ever written (a result, or a part of one).
    public static func object(_ type: Value.Type) -> Codec<Value> where Value: WireObject {
        written(Value.objectSchema) { $0.wireJSON() }
    }

    /// An object with these members, only ever written: the wire form of a value whose type has
    /// more than one (the same request for keys answered as an activation or as a recovery).
    public static func members(_ fields: [WireField<Value>]) -> Codec<Value> {
        written(fields.objectSchema()) { fields.write($0) }
    }

    private static func written(_ schema: Schema, _ write: @escaping @Sendable (Value) -> JSON) -> Codec<Value> {
        Codec(
            schema: schema,
            read: { _, path, problems in
                problems.append(ParamProblem(path, "is not accepted here"))
                return nil
            }, write: write)
    }
}
