import LatchkeyContract
import LatchkeyJSON
import LatchkeyRPC

/// How one Swift value is read from JSON, written to JSON, and described as a JSON Schema.
///
/// Every params and result shape is built from these, so the schema a caller reads, the checks its
/// params meet and the JSON it gets back cannot disagree.
public struct Codec<Value>: Sendable {
    /// What the value looks like on the wire.
    public let schema: Schema
    /// Reads a value at `path`; nil after appending at least one problem.
    public let read: @Sendable (JSON, String, inout [ParamProblem]) -> Value?
    /// Writes a value.
    public let write: @Sendable (Value) -> JSON

    public init(
        schema: Schema, read: @escaping @Sendable (JSON, String, inout [ParamProblem]) -> Value?,
        write: @escaping @Sendable (Value) -> JSON
    ) {
        self.schema = schema
        self.read = read
        self.write = write
    }

    /// The same wire form, named in `components.schemas`.
    public func named(_ name: String) -> Codec<Value> {
        Codec(schema: .named(name, schema), read: read, write: write)
    }

    /// The same wire form with a description.
    public func described(_ text: String) -> Codec<Value> {
        Codec(schema: .described(text, schema), read: read, write: write)
    }

    /// A further check on a value that already has the right form (a format, a range the schema cannot say).
    ///
    /// `check` answers the problem's message, or nil.
    public func checked(_ check: @escaping @Sendable (Value) -> String?) -> Codec<Value> {
        let read = self.read
        return Codec(
            schema: schema,
            read: { json, path, problems in
                guard let value = read(json, path, &problems) else { return nil }
                if let message = check(value) {
                    problems.append(ParamProblem(path, message))
                    return nil
                }
                return value
            }, write: write)
    }

    /// A value of another Swift type with the same wire form.
    public func map<Other>(
        _ forward: @escaping @Sendable (Value) -> Other,
        _ backward: @escaping @Sendable (Other) -> Value
    ) -> Codec<Other> {
        let read = self.read
        let write = self.write
        return Codec<Other>(
            schema: schema, read: { json, path, problems in read(json, path, &problems).map(forward) },
            write: { write(backward($0)) })
    }
}

// MARK: - scalars

/// Whether a string param may be kept: U+0000 is refused (the stores keep text as C strings, so
/// `a\u0000b` would be kept, and matched, as `a`).
public func acceptsText(_ text: String, _ path: String, _ problems: inout [ParamProblem]) -> Bool {
    guard text.utf8.contains(0) else { return true }
    problems.append(ParamProblem(path, "must not contain U+0000"))
    return false
}

/// The path of an object member the caller named: `path.key` where the key can be quoted
/// safely (at most 64 printable ASCII characters), else `path` alone; an error names the field,
/// it never echoes arbitrary input.
public func memberPath(_ path: String, _ key: String) -> String {
    key.isQuotableKey ? "\(path).\(key)" : path
}

extension String {
    /// A member name an error may name: at most 64 printable ASCII characters.
    public var isQuotableKey: Bool { utf8.count <= 64 && isPrintableASCII }

    /// Every character in U+0020–U+007E.
    public var isPrintableASCII: Bool { utf8.allSatisfy { (0x20...0x7E).contains($0) } }
}

/// Whether `value` keeps both bounds; a problem for each it breaks ("must have at least 6 characters", "must have at least 1 character", "must be at
/// most 10").
///
/// `unit` is singular ("character"); a bound other than 1 takes it with an s.
private func keepsBounds<T: Comparable>(
    _ value: T, _ minimum: T?, _ maximum: T?, _ path: String, _ problems: inout [ParamProblem],
    unit: String = ""
) -> Bool {
    let verb = unit.isEmpty ? "be" : "have"
    func counted(_ bound: T) -> String {
        let number = "\(bound)"
        return unit.isEmpty ? number : "\(number) \(unit)\(number == "1" ? "" : "s")"
    }
    var fits = true
    if let minimum, value < minimum {
        problems.append(ParamProblem(path, "must \(verb) at least \(counted(minimum))"))
        fits = false
    }
    if let maximum, value > maximum {
        problems.append(ParamProblem(path, "must \(verb) at most \(counted(maximum))"))
        fits = false
    }
    return fits
}

extension Codec where Value == String {
    /// A string, optionally bounded in length (counted in characters); U+0000 is refused unless `keepsNothing` (text read and never
    /// kept).
    public static func string(
        minLength: Int? = nil, maxLength: Int? = nil, format: String? = nil, keepsNothing: Bool = false
    ) -> Codec<String> {
        Codec(
            schema: .string(minLength: minLength, maxLength: maxLength, format: format),
            read: { json, path, problems in
                guard case .string(let text) = json else {
                    problems.append(ParamProblem(path, "must be a string, not \(json.typeName)"))
                    return nil
                }
                guard keepsNothing || acceptsText(text, path, &problems) else { return nil }
                // Characters are code points, as JSON Schema's `maxLength` counts them (not grapheme clusters: `e` and a combining
                // accent are two). Counting walks the string: only when there is a bound.
                if minLength != nil || maxLength != nil,
                    !keepsBounds(text.unicodeScalars.count, minLength, maxLength, path, &problems, unit: "character")
                {
                    return nil
                }
                return text
            }, write: { .string($0) })
    }

    /// Any string.
    public static let text: Codec<String> = .string()
    /// Any string, U+0000 included: text that is read and never kept (a scanned QR code, whose every flaw its reader names).
    public static let scanned: Codec<String> = .string(keepsNothing: true)
    /// A string of at least one character (an identifier).
    public static let identifier: Codec<String> = .string(minLength: 1)
    /// The identifier of a thing being made: 1 to 256 characters.
    ///
    /// The stores keep ids in indexes whose entries are bounded (PostgreSQL's at about 2 700 bytes, an index may hold two ids, and a
    /// character may take 4 bytes): a longer one is refused where it would be made, naming it, on every store. An id only looked up
    /// is not bounded: one a version before this made longer stays reachable.
    public static let newIdentifier: Codec<String> = .string(minLength: 1, maxLength: 256)
}

extension Codec where Value == Int64 {
    /// An integer (a real with no fraction, `3.0`, counts), optionally bounded.
    public static func integer(minimum: Int64? = nil, maximum: Int64? = nil) -> Codec<Int64> {
        Codec(
            schema: .integer(minimum: minimum, maximum: maximum),
            read: { json, path, problems in
                guard let number = json.intValue else {
                    if case .double(let whole) = json, whole.rounded() == whole {
                        // Whole, past 64 bits: past the bound on its side, if the member has one.
                        if whole > 0, let maximum {
                            problems.append(ParamProblem(path, "must be at most \(maximum)"))
                        } else if whole < 0, let minimum {
                            problems.append(ParamProblem(path, "must be at least \(minimum)"))
                        } else {
                            problems.append(ParamProblem(path, "must be an integer of 64 bits at most (−2^63 to 2^63−1)"))
                        }
                    } else {
                        problems.append(ParamProblem(path, "must be an integer, not \(json.typeName)"))
                    }
                    return nil
                }
                return keepsBounds(number, minimum, maximum, path, &problems) ? number : nil
            }, write: { .int($0) })
    }
}

extension Codec where Value == Int {
    /// An integer that fits an `Int`, optionally bounded.
    public static func int(minimum: Int64? = nil, maximum: Int64? = nil) -> Codec<Int> {
        Codec<Int64>.integer(minimum: minimum, maximum: maximum).map({ Int(clamping: $0) }, { Int64($0) })
    }
}

extension Codec where Value == Bool {
    public static let bool = Codec(
        schema: .boolean,
        read: { json, path, problems in
            guard let flag = json.boolValue else {
                problems.append(ParamProblem(path, "must be a boolean, not \(json.typeName)"))
                return nil
            }
            return flag
        }, write: { .bool($0) })
}

extension Codec where Value == JSON {
    /// Any JSON value, as given.
    public static let any = Codec(schema: .any, read: { json, _, _ in json }, write: { $0 })

    /// Any JSON object, as given.
    public static let freeObject = Codec(
        schema: .freeObject,
        read: { json, path, problems in json.object(at: path, into: &problems).map { _ in json } }, write: { $0 })
}

extension JSON {
    /// The members of this object; anything else adds "must be an object, not …" at `path` and answers nil.
    public func object(at path: String, into problems: inout [ParamProblem]) -> JSONObject? {
        guard case .object(let object) = self else {
            problems.append(ParamProblem(path, "must be an object, not \(typeName)"))
            return nil
        }
        return object
    }
}

extension Codec {
    /// One of a closed set of names, as a Swift enum named as on the wire.
    public static func enumeration(_ type: Value.Type, _ values: [Value] = Array(Value.allCases)) -> Codec<Value>
    where Value: RawRepresentable & CaseIterable & Sendable, Value.RawValue == String {
        let names = values.map(\.rawValue)
        let list = names.joined(separator: ", ")
        return Codec(
            schema: .enumeration(names),
            read: { json, path, problems in
                guard case .string(let text) = json else {
                    problems.append(ParamProblem(path, "must be one of \(list), not \(json.typeName)"))
                    return nil
                }
                guard names.contains(text), let value = Value(rawValue: text) else {
                    problems.append(ParamProblem(path, "must be one of \(list)"))
                    return nil
                }
                return value
            }, write: { .string($0.rawValue) })
    }

    /// One of a closed set of integers, as a Swift enum.
    public static func integerEnumeration(_ type: Value.Type) -> Codec<Value>
    where Value: RawRepresentable & CaseIterable & Sendable, Value.RawValue == Int {
        let values = Value.allCases.map { Int64($0.rawValue) }
        return Codec(
            schema: .integerEnumeration(values),
            read: { json, path, problems in
                guard let number = json.intValue, values.contains(number), let value = Value(rawValue: Int(number)) else {
                    problems.append(ParamProblem(path, "must be one of \(values.map(String.init).joined(separator: ", "))"))
                    return nil
                }
                return value
            }, write: { .int(Int64($0.rawValue)) })
    }

    /// A list of values of one codec.
    public static func array<Item>(_ item: Codec<Item>, minItems: Int? = nil, maxItems: Int? = nil) -> Codec<[Item]> where Value == [Item] {
        Codec(
            schema: .array(item.schema, minItems: minItems, maxItems: maxItems),
            read: { json, path, problems in
                guard case .array(let elements) = json else {
                    problems.append(ParamProblem(path, "must be an array, not \(json.typeName)"))
                    return nil
                }
                let before = problems.count
                _ = keepsBounds(elements.count, minItems, maxItems, path, &problems, unit: "item")
                var items: [Item] = []
                items.reserveCapacity(elements.count)
                for (index, element) in elements.enumerated() {
                    if let item = item.read(element, "\(path)[\(index)]", &problems) { items.append(item) }
                }
                return problems.count == before ? items : nil
            }, write: { .array($0.map(item.write)) })
    }

    /// A value that may be null (written as null when absent).
    public static func nullable<Wrapped>(_ inner: Codec<Wrapped>) -> Codec<Wrapped?> where Value == Wrapped? {
        Codec(
            schema: .nullable(inner.schema),
            read: { json, path, problems in
                if json.isNull { return .some(nil) }
                return inner.read(json, path, &problems).map { .some($0) }
            }, write: { $0.map(inner.write) ?? .null })
    }
}
