import LatchkeyContract
import LatchkeyJSON
import LatchkeyRPC

/// A value read from the params of a call (the params themselves, or an object inside them): its members listed once, in `wire`, each tied by its
/// label to the stored property it fills.
///
/// `static let wire = (deviceId: WireMember.deviceId, kind: WireMember.required("kind", .enumeration(BackupKind.self)))` has one element a
/// stored property (a `let`), labelled with its name, in wire order. A type of one member names it alone (`static let wire =
/// WireMember.deviceId`: Swift has no labelled tuple of one); a type of none writes `static let wire: () = ()`.
///
/// `make regen` (schema/gen_params.py) writes the rest into the target's `Generated/WireParams+Decoding.swift`: `decodeMembers` reads every
/// member into a local of its own type and calls the memberwise initializer with every label, so a property `wire` forgets, or a label naming
/// no property, does not compile.
public protocol WireParams: Sendable {
    /// Reads every member (generated); nil when one of them recorded a problem. Rules and unknown members are `decode`'s.
    static func decodeMembers(_ object: JSONObject, at path: String, into problems: inout [ParamProblem]) -> Self?
    /// The members as the documents describe them, an inline member's own in its place (generated).
    static var members: [WireMemberInfo] { get }

    /// A name in `components.schemas`, or nil to spell the shape out where it is used.
    static var schemaName: String? { get }
    /// Rules over several members (exactly one of two, …), checked once every member was read.
    static var rules: [WireRule<Self>] { get }
    /// For an object whose members are a closed set (keys by role): the problem a member it
    /// does not declare answers. nil: such members are ignored.
    static var unknownMemberProblem: String? { get }
}

extension WireParams {
    public static var schemaName: String? { nil }
    public static var rules: [WireRule<Self>] { [] }
    public static var unknownMemberProblem: String? { nil }

    /// Reads the value from the members of `object`: every member, then (when the type has one) a problem for each member it does not declare,
    /// then, when all of that went well, the rules.
    // Inlinable, as the rest of the read path: specialised where each params type is known (in another module, a generic call would look up
    // the metadata of `Self?` on every call).
    @inlinable
    public static func decode(_ object: JSONObject, at path: String, into problems: inout [ParamProblem]) -> Self? {
        let before = problems.count
        let value = decodeMembers(object, at: path, into: &problems)
        if let unknown = unknownMemberProblem { findUnknownMembers(object, unknown, path, &problems) }
        guard problems.count == before, let value else { return nil }
        for rule in rules { rule.check(value, path, &problems) }
        return problems.count == before ? value : nil
    }

    /// A problem for each member of `object` that is not one of `members`.
    @inline(never) @usableFromInline
    static func findUnknownMembers(_ object: JSONObject, _ unknown: String, _ path: String, _ problems: inout [ParamProblem]) {
        let declared = Set(members.map(\.name))
        for key in object.keys where !declared.contains(key) {
            problems.append(ParamProblem(path.isEmpty ? (key.isQuotableKey ? key : "") : memberPath(path, key), unknown))
        }
    }

    /// The schema of the object's members.
    public static var objectSchema: Schema {
        let shape = Schema.object(members.map(\.field), additional: unknownMemberProblem == nil)
        return schemaName.map { .named($0, shape) } ?? shape
    }
}

/// Params whose values are also written: an object inside params (`Codec.object`), a shape other params take inline, or a result.
///
/// `make regen` writes its `write(into:)` as well.
public protocol WireWritableParams: WireParams {
    /// Writes the members in wire order (generated).
    func write(into object: inout JSONObject)
}

extension WireWritableParams {
    /// The value as a JSON object, members in wire order.
    public func wireJSON() -> JSON {
        var object = JSONObject()
        write(into: &object)
        return .object(object)
    }
}

/// One member of a params object, typed by the value it yields: its name, whether it must be there, its schema, and how it is read from the
/// object that holds it and written back.
public struct WireMember<Value>: Sendable {
    /// What the documents say of it (for an inline member: nothing; its own members stand in its place).
    @usableFromInline let info: WireMemberInfo?
    @usableFromInline let reader: @Sendable (JSONObject, String, inout [ParamProblem]) -> Value?
    @usableFromInline let writer: @Sendable (Value, inout JSONObject) -> Void
    @usableFromInline let expanded: @Sendable () -> [WireMemberInfo]

    @usableFromInline
    init(
        info: WireMemberInfo?, reader: @escaping @Sendable (JSONObject, String, inout [ParamProblem]) -> Value?,
        writer: @escaping @Sendable (Value, inout JSONObject) -> Void, expanded: @escaping @Sendable () -> [WireMemberInfo]
    ) {
        self.info = info
        self.reader = reader
        self.writer = writer
        self.expanded = expanded
    }

    // The constructors and the read path are inlinable: the closures they make are then specialised for the member's type where the params
    // type declares it.

    /// Reads the member from `object`, the object at `path`; nil when it recorded a problem.
    @inlinable
    public func read(_ object: JSONObject, _ path: String, _ problems: inout [ParamProblem]) -> Value? {
        reader(object, path, &problems)
    }

    /// Writes the member into the object that holds it (an optional one only when it is set).
    @inlinable
    public func write(_ value: Value, into object: inout JSONObject) { writer(value, &object) }

    /// The member as the documents describe it (an inline member: its own members).
    public var members: [WireMemberInfo] { info.map { [$0] } ?? expanded() }

    /// A member of the object, at `name`: `read` gets the member's JSON (nil when absent) and its path.
    @inlinable
    static func member(
        _ name: String, required: Bool, _ summary: String, _ schema: Schema,
        read: @escaping @Sendable (JSON?, String, inout [ParamProblem]) -> Value?,
        write: @escaping @Sendable (Value, inout JSONObject) -> Void
    ) -> WireMember {
        WireMember(
            info: WireMemberInfo(name: name, required: required, summary: summary, schema: schema),
            reader: { object, path, problems in read(object[name], path.isEmpty ? name : path + "." + name, &problems) },
            writer: write, expanded: { [] })
    }

    /// A member that is always there.
    @inlinable
    public static func required(_ name: String, _ codec: Codec<Value>, _ summary: String = "") -> WireMember {
        member(name, required: true, summary, codec.schema) { json, path, problems in
            guard let json else {
                problems.append(ParamProblem(path, "is required"))
                return nil
            }
            return codec.read(json, path, &problems)
        } write: { value, object in
            object.appendUnchecked(name, codec.write(value))
        }
    }

    /// A member that may be left out (null counts as left out); written only when set.
    @inlinable
    public static func optional<Wrapped>(_ name: String, _ codec: Codec<Wrapped>, _ summary: String = "") -> WireMember
    where Value == Wrapped? {
        member(name, required: false, summary, codec.schema) { json, path, problems in
            guard let json, !json.isNull else { return .some(nil) }
            guard let value = codec.read(json, path, &problems) else { return nil }
            return .some(value)
        } write: { value, object in
            if let value { object.appendUnchecked(name, codec.write(value)) }
        }
    }

    /// A member that may be left out, taking the contract's default then (shown in the schema).
    @inlinable
    public static func defaulted(_ name: String, _ codec: Codec<Value>, default value: Value, _ summary: String = "") -> WireMember
    where Value: Sendable {
        member(name, required: false, summary, .defaulted(codec.write(value), codec.schema)) { json, path, problems in
            guard let json, !json.isNull else { return value }
            return codec.read(json, path, &problems)
        } write: { value, object in
            object.appendUnchecked(name, codec.write(value))
        }
    }

    /// The members of another params type, read from the same object (a shape several methods share, such as `{registrationId, challengeId}`).
    ///
    /// Its rules are not checked here: the outer type lists those it keeps.
    @inlinable
    public static func inline(_ type: Value.Type) -> WireMember where Value: WireWritableParams {
        WireMember(
            info: nil, reader: { object, path, problems in Value.decodeMembers(object, at: path, into: &problems) },
            writer: { value, object in value.write(into: &object) }, expanded: { Value.members })
    }
}

/// A member of a params object, as the documents describe it.
public struct WireMemberInfo: Sendable {
    public let name: String
    public let required: Bool
    public let summary: String
    public let schema: Schema

    @usableFromInline
    init(name: String, required: Bool, summary: String, schema: Schema) {
        self.name = name
        self.required = required
        self.summary = summary
        self.schema = schema
    }

    /// The member in an object schema.
    var field: Field { Field(name, schema, required: required, summary) }
}

/// A rule over several members of a params object, checked once every member was read.
public struct WireRule<Root>: Sendable {
    @usableFromInline let check: @Sendable (Root, String, inout [ParamProblem]) -> Void

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

    /// Every one of `rules`, their problems in that order.
    public static func all(_ rules: [WireRule]) -> WireRule {
        WireRule { root, path, problems in
            for rule in rules { rule.check(root, path, &problems) }
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

/// No params.
public struct NoParams: WireParams {
    public init() {}
    public static let wire: () = ()
}

extension Codec {
    /// A params object inside the params (`{publicKey, proof}`), read member by member and written back the same way.
    public static func object(_ type: Value.Type) -> Codec<Value> where Value: WireWritableParams {
        Codec(
            schema: Value.objectSchema,
            read: { json, path, problems in
                guard let object = json.object(at: path, into: &problems) else { return nil }
                return Value.decode(object, at: path, into: &problems)
            }, write: { $0.wireJSON() })
    }
}

extension WireRule {
    /// The rule with the problems' paths under `member`.
    public func at(path member: String) -> WireRule {
        let check = self.check
        return WireRule.custom { root, path, problems in check(root, path.isEmpty ? member : "\(path).\(member)", &problems) }
    }
}
