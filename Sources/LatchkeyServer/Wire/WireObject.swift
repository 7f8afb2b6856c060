import LatchkeyContract
import LatchkeyJSON
import LatchkeyRPC

/// A Swift type whose wire form is a JSON object: its members, in the order they are written, each tied to a stored property.
///
/// The list drives reading, writing and the schema.
public protocol WireObject: Sendable {
    static var fields: [WireField<Self>] { get }
    /// A name in `components.schemas`, or nil to spell the shape out where it is used.
    static var schemaName: String? { get }
    /// Rules over several members (exactly one of two, …), checked after the members.
    static var rules: [WireRule<Self>] { get }
    /// For an object whose members are a closed set (keys by role): the problem a member it
    /// does not declare answers. nil: such members are ignored.
    static var unknownMemberProblem: String? { get }
}

extension WireObject {
    public static var schemaName: String? { nil }
    public static var rules: [WireRule<Self>] { [] }
    public static var unknownMemberProblem: String? { nil }
}

/// A `WireObject` that can be read: decoding starts from `init()` and sets every declared
/// member, or fails with a problem for each that is missing or malformed (so the values
/// `init()` starts from are never seen by a handler).
public protocol WireReadable: WireObject {
    init()
}

/// One member of a wire object: its name, whether it must be there, its schema and how it
/// is read into and written from the Swift value.
public struct WireField<Root>: Sendable {
    public let name: String
    public let required: Bool
    public let summary: String
    public let schema: Schema
    let read: @Sendable (inout Root, JSON?, String, inout [ParamProblem]) -> Void
    let write: @Sendable (Root, inout JSONObject) -> Void
    /// The bytes of `Root` the member reads and writes (a nested property's, for `\.who.email`),
    /// for the test that proves a type's list covers every property it stores.
    var storage: @Sendable () -> Range<Int>? = { nil }

    /// A member that is always there.
    public static func required<V>(
        _ name: String, _ keyPath: WritableKeyPath<Root, V> & Sendable, _ codec: Codec<V>,
        _ summary: String = ""
    ) -> WireField {
        let offset = MemoryLayout<Root>.offset(of: keyPath)
        return written(name, required: true, summary, codec.schema, keyPath, codec) { root, json, path, problems in
            guard let json else {
                problems.append(ParamProblem(path, "is required"))
                return
            }
            if let value = codec.read(json, path, &problems) { store(value, keyPath, offset, &root) }
        }
    }

    /// A member that may be left out (null counts as left out); written only when set.
    public static func optional<V>(
        _ name: String, _ keyPath: WritableKeyPath<Root, V?> & Sendable, _ codec: Codec<V>,
        _ summary: String = ""
    ) -> WireField {
        let offset = MemoryLayout<Root>.offset(of: keyPath)
        return WireField(
            name: name, required: false, summary: summary, schema: codec.schema,
            read: { root, json, path, problems in
                guard let json, !json.isNull else { return }
                if let value = codec.read(json, path, &problems) { store(value, keyPath, offset, &root) }
            },
            write: { root, object in
                if let value = root[keyPath: keyPath] { object.appendUnchecked(name, codec.write(value)) }
            }, storage: { bytes(of: keyPath) })
    }

    /// A member that may be left out, taking the contract's default then (shown in the schema).
    public static func defaulted<V>(
        _ name: String, _ keyPath: WritableKeyPath<Root, V> & Sendable, _ codec: Codec<V>,
        default value: V, _ summary: String = ""
    ) -> WireField where V: Sendable {
        let offset = MemoryLayout<Root>.offset(of: keyPath)
        return written(name, required: false, summary, .defaulted(codec.write(value), codec.schema), keyPath, codec) { root, json, path, problems in
            guard let json, !json.isNull else {
                store(value, keyPath, offset, &root)
                return
            }
            if let read = codec.read(json, path, &problems) { store(read, keyPath, offset, &root) }
        }
    }

    /// A member that is always written, from a value the type computes (results only).
    public static func computed<V>(
        _ name: String, _ keyPath: KeyPath<Root, V> & Sendable, _ codec: Codec<V>,
        _ summary: String = ""
    ) -> WireField {
        written(name, required: true, summary, codec.schema, keyPath, codec) { _, json, path, problems in
            if json != nil { problems.append(ParamProblem(path, "is not accepted here")) }
        }
    }

    /// A member always written as `codec` writes the value at `keyPath`, and read by `read`.
    private static func written<V>(
        _ name: String, required: Bool, _ summary: String, _ schema: Schema, _ keyPath: KeyPath<Root, V> & Sendable, _ codec: Codec<V>,
        read: @escaping @Sendable (inout Root, JSON?, String, inout [ParamProblem]) -> Void
    ) -> WireField {
        WireField(
            name: name, required: required, summary: summary, schema: schema, read: read,
            write: { root, object in object.appendUnchecked(name, codec.write(root[keyPath: keyPath])) }, storage: { bytes(of: keyPath) })
    }

    /// This member as a member of an outer value that holds this one's root at `keyPath`.
    public func lifted<Outer>(_ keyPath: WritableKeyPath<Outer, Root> & Sendable) -> WireField<Outer> {
        let read = self.read
        let write = self.write
        return WireField<Outer>(
            name: name, required: required, summary: summary, schema: schema,
            read: { outer, json, path, problems in read(&outer[keyPath: keyPath], json, path, &problems) },
            write: { outer, object in write(outer[keyPath: keyPath], &object) },
            storage: { [inner = self.storage] in
                MemoryLayout<Outer>.offset(of: keyPath).flatMap { base in inner().map { $0.lowerBound + base..<$0.upperBound + base } }
            })
    }

    /// A member that is always there and may be null.
    public static func nullable<V>(
        _ name: String, _ keyPath: WritableKeyPath<Root, V?> & Sendable, _ codec: Codec<V>,
        _ summary: String = ""
    ) -> WireField {
        .required(name, keyPath, .nullable(codec), summary)
    }
}

/// Sets the property `keyPath` names: straight into its bytes at `offset` when it is a stored one
/// (a write through a key path is a call into the runtime for every member read), else through
/// the key path.
private func store<Root, V>(_ value: V, _ keyPath: WritableKeyPath<Root, V>, _ offset: Int?, _ root: inout Root) {
    guard let offset else {
        root[keyPath: keyPath] = value
        return
    }
    withUnsafeMutableBytes(of: &root) { bytes in
        guard let base = bytes.baseAddress else { return }
        // The property's memory holds an initialized V: assigning releases the old value.
        (base + offset).assumingMemoryBound(to: V.self).pointee = value
    }
}

/// The bytes a stored property takes in its root (nil for a computed one).
private func bytes<Root, V>(of keyPath: KeyPath<Root, V>) -> Range<Int>? {
    MemoryLayout<Root>.offset(of: keyPath).map { $0..<$0 + MemoryLayout<V>.size }
}

/// A rule over several members of a wire object, checked once every member was read.
public struct WireRule<Root>: Sendable {
    let check: @Sendable (Root, String, inout [ParamProblem]) -> Void

    /// Exactly one of two optional members: `first` is missing when neither is given, `second`
    /// is the one too many when both are.
    public static func exactlyOne<A, B>(
        _ first: String, _ firstPath: KeyPath<Root, A?> & Sendable,
        _ second: String, _ secondPath: KeyPath<Root, B?> & Sendable
    ) -> WireRule {
        WireRule { root, path, problems in
            let prefix = path.isEmpty ? "" : path + "."
            switch (root[keyPath: firstPath] != nil, root[keyPath: secondPath] != nil) {
            case (false, false):
                problems.append(ParamProblem(prefix + first, "is required when \(second) is absent (give one of them)"))
            case (true, true):
                problems.append(ParamProblem(prefix + second, "cannot be given together with \(first) (give one of them)"))
            default:
                break
            }
        }
    }

    /// The rule applied to a part of another object.
    public func at<Outer>(_ keyPath: KeyPath<Outer, Root> & Sendable) -> WireRule<Outer> {
        let check = self.check
        return WireRule<Outer> { outer, path, problems in check(outer[keyPath: keyPath], path, &problems) }
    }

    /// Applies the rule on its own (when it must wait for a check that comes first).
    /// - Throws: `invalidParams` with the problems it finds.
    public func enforce(_ value: Root, at path: String = "") throws {
        var problems: [ParamProblem] = []
        check(value, path, &problems)
        if !problems.isEmpty { throw RPCError.invalidParams(problems) }
    }

    /// A rule of the method's own, answering the problems it finds.
    public static func custom(_ check: @escaping @Sendable (Root, String, inout [ParamProblem]) -> Void) -> WireRule {
        WireRule(check: check)
    }
}

extension Array {
    /// The schema of an object with these members.
    func objectSchema<Root>(additional: Bool = true) -> Schema where Element == WireField<Root> {
        .object(map { Field($0.name, $0.schema, required: $0.required, $0.summary) }, additional: additional)
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
        let shape = unknownMemberProblem == nil ? fields.objectSchema() : fields.objectSchema(additional: false)
        return schemaName.map { .named($0, shape) } ?? shape
    }

    /// Writes the object, members in declaration order.
    public func wireJSON() -> JSON { Self.fields.write(self) }
}

extension WireReadable {
    /// Reads the object from the members of `object`; unknown members are ignored, or answer
    /// `unknownMemberProblem` when the type has one.
    public static func read(_ object: JSONObject, at path: String, into problems: inout [ParamProblem]) -> Self? {
        let before = problems.count
        var value = Self()
        let fields = Self.fields
        // By index: a `for … in` copies each member (its name, schema and three closures).
        for index in fields.indices {
            let name = fields[index].name
            fields[index].read(&value, object[name], path.isEmpty ? name : path + "." + name, &problems)
        }
        if let unknown = unknownMemberProblem { findUnknownMembers(object, unknown, path, &problems) }
        guard problems.count == before else { return nil }
        for rule in rules { rule.check(value, path, &problems) }
        return problems.count == before ? value : nil
    }

    /// A problem for each member of `object` that is not one of `fields`.
    @inline(never)
    private static func findUnknownMembers(_ object: JSONObject, _ unknown: String, _ path: String, _ problems: inout [ParamProblem]) {
        let declared = Set(fields.map(\.name))
        for key in object.keys where !declared.contains(key) {
            problems.append(ParamProblem(path.isEmpty ? (key.isQuotableKey ? key : "") : memberPath(path, key), unknown))
        }
    }
}

extension Codec {
    /// `{name: value}`: an object of one member, read and written as that member's value.
    public static func member(_ name: String, _ codec: Codec<Value>, _ summary: String = "") -> Codec<Value> {
        Codec(
            schema: .object([Field(name, codec.schema, required: true, summary)]),
            read: { json, path, problems in
                guard case .object(let object) = json else {
                    problems.append(ParamProblem(path, "must be an object, not \(json.typeName)"))
                    return nil
                }
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

    /// A wire object that is also read (a param, or a part of one).
    public static func object(_ type: Value.Type) -> Codec<Value> where Value: WireReadable {
        Codec(
            schema: Value.objectSchema,
            read: { json, path, problems in
                guard case .object(let object) = json else {
                    problems.append(ParamProblem(path, "must be an object, not \(json.typeName)"))
                    return nil
                }
                return Value.read(object, at: path, into: &problems)
            }, write: { $0.wireJSON() })
    }
}
