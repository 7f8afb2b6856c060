/// A JSON value as the protocol sees it: objects keep their members in insertion order,
/// so a document serializes deterministically.
public enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object(JSONObject)

    /// The deepest nesting of arrays and objects; a scalar has depth 0.
    public var depth: Int {
        switch self {
        case .array(let items): return 1 + (items.map(\.depth).max() ?? 0)
        case .object(let object): return 1 + (object.entries.map(\.value.depth).max() ?? 0)
        default: return 0
        }
    }

    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    public var objectValue: JSONObject? { if case .object(let o) = self { return o } else { return nil } }
    public var arrayValue: [JSON]? { if case .array(let a) = self { return a } else { return nil } }
    public var isNull: Bool { if case .null = self { return true } else { return false } }

    /// An integer, also when written as a real with no fractional part (`3.0`).
    public var intValue: Int64? {
        switch self {
        case .int(let i): return i
        // Every double in [-2^63, 2^63) converts exactly (2^63 itself does not fit).
        case .double(let d) where d.rounded() == d && d >= -9_223_372_036_854_775_808.0 && d < 9_223_372_036_854_775_808.0: return Int64(d)
        default: return nil
        }
    }

    /// The member named `key` of an object, or nil.
    public subscript(key: String) -> JSON? {
        objectValue?[key]
    }

    /// The name of this value's JSON type, for error messages.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .int: return "integer"
        case .double: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

/// A JSON object: members in insertion order, looked up by key.
public struct JSONObject: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var key: String
        public var value: JSON
        public init(key: String, value: JSON) {
            self.key = key
            self.value = value
        }
    }

    public private(set) var entries: [Entry]

    public init() { entries = [] }

    /// An object with these members, in this order; the caller knows their keys to be distinct
    /// (they are not looked up).
    public init(uniqueEntries: [Entry]) {
        entries = uniqueEntries
    }

    /// The members in order; a key given twice keeps its first place and its last value.
    public init(_ pairs: [(String, JSON)]) {
        entries = []
        entries.reserveCapacity(pairs.count)
        for (key, value) in pairs { set(key, value) }
    }

    public var isEmpty: Bool { entries.isEmpty }
    public var count: Int { entries.count }
    public var keys: [String] { entries.map(\.key) }

    /// Reads a member; setting a member replaces it in place or appends it.
    ///
    /// Member names match byte for byte, as the parser's duplicate check compares them: Swift's `==` takes `"iCloud\u{212A}eychain"`
    /// (the Kelvin sign) for `"iCloudKeychain"`, a name no caller wrote.
    public subscript(key: String) -> JSON? {
        get {
            for entry in entries where Self.same(entry.key, key) { return entry.value }
            return nil
        }
        set {
            if let newValue {
                set(key, newValue)
            } else if let index = entries.firstIndex(where: { Self.same($0.key, key) }) {
                entries.remove(at: index)
            }
        }
    }

    /// Whether two member names are the same bytes (compared in place where both are stored contiguously, as parsed names are).
    @inline(__always) private static func same(_ one: String, _ other: String) -> Bool {
        guard one.utf8.count == other.utf8.count else { return false }
        let inPlace = one.utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs in mine.elementsEqual(theirs) }
        }
        return (inPlace ?? nil) ?? one.utf8.elementsEqual(other.utf8)
    }

    /// Replaces the member `key` in place, or appends it.
    private mutating func set(_ key: String, _ value: JSON) {
        if let index = entries.firstIndex(where: { Self.same($0.key, key) }) {
            entries[index].value = value
        } else {
            entries.append(Entry(key: key, value: value))
        }
    }

    /// Appends a member without looking for an existing one (the caller knows the key is new).
    public mutating func appendUnchecked(_ key: String, _ value: JSON) {
        entries.append(Entry(key: key, value: value))
    }

    /// Objects are equal when they hold the same members, whatever their order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.entries.count == rhs.entries.count else { return false }
        for entry in lhs.entries where rhs[entry.key] != entry.value { return false }
        return true
    }
}

extension JSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral, ExpressibleByFloatLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSON)...) { self = .object(JSONObject(elements)) }
    public init(nilLiteral: ()) { self = .null }
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension JSON {
    /// A string, or null when absent.
    public static func string(orNull value: String?) -> JSON { value.map(JSON.string) ?? .null }
    /// An integer from a Swift `Int`.
    public static func int(_ value: Int) -> JSON { .int(Int64(value)) }
    /// An array of strings.
    public static func strings(_ values: [String]) -> JSON { .array(values.map(JSON.string)) }
}
