import LatchkeyJSON
import LatchkeyCore

/// Validated params: typed getters over an object that already matched the method's schema.
/// A getter of a required member never fails; an optional one returns nil when absent or null.
public struct Params: Sendable {
    public let object: JSONObject

    public init(_ object: JSONObject) { self.object = object }

    public func json(_ key: String) -> JSON? {
        guard let value = object[key], !value.isNull else { return nil }
        return value
    }

    public func string(_ key: String) -> String { json(key)?.stringValue ?? "" }
    public func optionalString(_ key: String) -> String? { json(key)?.stringValue }
    public func int(_ key: String) -> Int64 { json(key)?.intValue ?? 0 }
    public func optionalInt(_ key: String) -> Int64? { json(key)?.intValue }
    public func optionalIntValue(_ key: String) -> Int? { optionalInt(key).map { Int(clamping: $0) } }
    public func bool(_ key: String, default value: Bool) -> Bool { json(key)?.boolValue ?? value }
    public func optionalBool(_ key: String) -> Bool? { json(key)?.boolValue }
    public func strings(_ key: String) -> [String] { json(key)?.arrayValue?.compactMap(\.stringValue) ?? [] }
    public func optionalStrings(_ key: String) -> [String]? { json(key)?.arrayValue?.compactMap(\.stringValue) }
    public func nested(_ key: String) -> Params { Params(json(key)?.objectValue ?? JSONObject()) }
    public func optionalNested(_ key: String) -> Params? { json(key)?.objectValue.map(Params.init) }

    /// An enum member by its wire name.
    public func value<E: RawRepresentable>(_ key: String, as type: E.Type) -> E? where E.RawValue == String {
        optionalString(key).flatMap(E.init(rawValue:))
    }
}
