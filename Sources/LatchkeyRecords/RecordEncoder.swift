/// How a store writes each kind of column value: its own binding type (`Value`) built from the kinds records hold.
///
/// A store without a kind answers nil and the encoder refuses the record.
public protocol RecordColumnValues {
    associatedtype Value
    static var null: Value { get }
    static func integer(_ value: Int64) -> Value
    static func real(_ value: Double) -> Value?
    static func text(_ value: String) -> Value
    static func bool(_ value: Bool) -> Value
    static func bytes(_ value: [UInt8]) -> Value
}

/// Encodes a record (`Encodable` with scalar properties and byte arrays only) into its columns, in property order, for any store: every property
/// becomes a column, nil as NULL (so a save clears what became nil), byte arrays as blobs (bytea).
///
/// Anything else is an `EncodingError`, never a crash. Generic over the store's values so each column
/// is built as the store's own binding directly.
public final class RecordEncoder<Values: RecordColumnValues>: Encoder {
    @usableFromInline var names: [String] = []
    @usableFromInline var values: [Values.Value] = []
    @usableFromInline var failure: EncodingError?

    public var codingPath: [any CodingKey] { [] }
    public var userInfo: [CodingUserInfoKey: Any] { [:] }

    @inlinable
    public init() {}

    /// The record's columns and values.
    @inlinable
    public static func columns<R: Encodable>(of record: R) throws -> (names: [String], values: [Values.Value]) {
        let encoder = RecordEncoder()
        try record.encode(to: encoder)
        if let failure = encoder.failure { throw failure }
        return (encoder.names, encoder.values)
    }

    @inlinable
    func append(_ key: some CodingKey, _ value: Values.Value) {
        names.append(key.stringValue)
        values.append(value)
    }

    @usableFromInline
    func refuse(_ what: String) {
        if failure == nil {
            failure = EncodingError.invalidValue(what, .init(codingPath: [], debugDescription: "records hold scalars and byte arrays only: \(what)"))
        }
    }

    @inlinable
    public func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(RecordColumnWriter<Key, Values>(encoder: self))
    }

    public func unkeyedContainer() -> any UnkeyedEncodingContainer {
        refuse("a list at the top")
        return RefusingContainer(encoder: self)
    }

    public func singleValueContainer() -> any SingleValueEncodingContainer {
        refuse("a single value at the top")
        return RefusingContainer(encoder: self)
    }
}

@usableFromInline
struct RecordColumnWriter<Key: CodingKey, Values: RecordColumnValues>: KeyedEncodingContainerProtocol {
    @usableFromInline let encoder: RecordEncoder<Values>
    @usableFromInline var codingPath: [any CodingKey] { [] }

    @inlinable
    init(encoder: RecordEncoder<Values>) { self.encoder = encoder }

    @inlinable mutating func encodeNil(forKey key: Key) throws { encoder.append(key, Values.null) }
    @inlinable mutating func encode(_ value: Bool, forKey key: Key) throws { encoder.append(key, Values.bool(value)) }
    @inlinable mutating func encode(_ value: String, forKey key: Key) throws { encoder.append(key, Values.text(value)) }
    @inlinable mutating func encode(_ value: Double, forKey key: Key) throws { real(value, key) }
    @inlinable mutating func encode(_ value: Float, forKey key: Key) throws { real(Double(value), key) }
    @inlinable mutating func encode(_ value: Int, forKey key: Key) throws { encoder.append(key, Values.integer(Int64(value))) }
    @inlinable mutating func encode(_ value: Int8, forKey key: Key) throws { encoder.append(key, Values.integer(Int64(value))) }
    @inlinable mutating func encode(_ value: Int16, forKey key: Key) throws { encoder.append(key, Values.integer(Int64(value))) }
    @inlinable mutating func encode(_ value: Int32, forKey key: Key) throws { encoder.append(key, Values.integer(Int64(value))) }
    @inlinable mutating func encode(_ value: Int64, forKey key: Key) throws { encoder.append(key, Values.integer(value)) }
    @inlinable mutating func encode(_ value: UInt, forKey key: Key) throws { try exact(Int64(exactly: value), key) }
    @inlinable mutating func encode(_ value: UInt8, forKey key: Key) throws { encoder.append(key, Values.integer(Int64(value))) }
    @inlinable mutating func encode(_ value: UInt16, forKey key: Key) throws { encoder.append(key, Values.integer(Int64(value))) }
    @inlinable mutating func encode(_ value: UInt32, forKey key: Key) throws { encoder.append(key, Values.integer(Int64(value))) }
    @inlinable mutating func encode(_ value: UInt64, forKey key: Key) throws { try exact(Int64(exactly: value), key) }

    @inlinable
    func real(_ value: Double, _ key: Key) {
        guard let real = Values.real(value) else { return encoder.refuse("a real at \(key.stringValue)") }
        encoder.append(key, real)
    }

    @inlinable
    func exact(_ value: Int64?, _ key: Key) throws {
        guard let value else {
            throw EncodingError.invalidValue(key.stringValue, .init(codingPath: [key], debugDescription: "too large for a 64-bit column"))
        }
        encoder.append(key, Values.integer(value))
    }

    /// Byte arrays are blobs; scalars reach here from the generic `encodeIfPresent`.
    @inlinable
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        switch value {
        case let bytes as [UInt8]: encoder.append(key, Values.bytes(bytes))
        case let text as String: try encode(text, forKey: key)
        case let number as Int64: try encode(number, forKey: key)
        case let number as Int: try encode(number, forKey: key)
        case let flag as Bool: try encode(flag, forKey: key)
        case let number as Double: try encode(number, forKey: key)
        case let number as Float: try encode(number, forKey: key)
        case let number as Int8: try encode(number, forKey: key)
        case let number as Int16: try encode(number, forKey: key)
        case let number as Int32: try encode(number, forKey: key)
        case let number as UInt: try encode(number, forKey: key)
        case let number as UInt8: try encode(number, forKey: key)
        case let number as UInt16: try encode(number, forKey: key)
        case let number as UInt32: try encode(number, forKey: key)
        case let number as UInt64: try encode(number, forKey: key)
        default:
            throw EncodingError.invalidValue(key.stringValue, .init(codingPath: [key], debugDescription: "records hold scalars and byte arrays only"))
        }
    }

    // Optionals: nil is a NULL column, not a missing one.
    @inlinable
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        encoder.append(key, value.map(Values.text) ?? Values.null)
    }

    @inlinable
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
        encoder.append(key, value.map(Values.integer) ?? Values.null)
    }

    @inlinable
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
        encoder.append(key, value.map { Values.integer(Int64($0)) } ?? Values.null)
    }

    @inlinable
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
        encoder.append(key, value.map(Values.bool) ?? Values.null)
    }

    @inlinable
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        guard let value else { return encoder.append(key, Values.null) }
        try encode(value, forKey: key)
    }

    @usableFromInline
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        encoder.refuse("a nested value at \(key.stringValue)")
        return KeyedEncodingContainer(RecordColumnWriter<NestedKey, Values>(encoder: RecordEncoder()))
    }

    @usableFromInline
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder.refuse("a nested list at \(key.stringValue)")
        return RefusingContainer(encoder: encoder)
    }

    @usableFromInline
    mutating func superEncoder() -> any Encoder {
        encoder.refuse("a superclass")
        return RecordEncoder<Values>()
    }

    @usableFromInline
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        encoder.refuse("a superclass at \(key.stringValue)")
        return RecordEncoder<Values>()
    }
}

/// What the encoder hands out for shapes a record cannot have: every write fails.
private struct RefusingContainer<Values: RecordColumnValues>: UnkeyedEncodingContainer, SingleValueEncodingContainer {
    let encoder: RecordEncoder<Values>
    var codingPath: [any CodingKey] { [] }
    var count: Int { 0 }

    private func refuse() throws -> Never {
        throw EncodingError.invalidValue("value", .init(codingPath: [], debugDescription: "records hold scalars and byte arrays only"))
    }

    mutating func encodeNil() throws { try refuse() }
    mutating func encode(_ value: Bool) throws { try refuse() }
    mutating func encode(_ value: String) throws { try refuse() }
    mutating func encode(_ value: Double) throws { try refuse() }
    mutating func encode(_ value: Float) throws { try refuse() }
    mutating func encode(_ value: Int) throws { try refuse() }
    mutating func encode(_ value: Int8) throws { try refuse() }
    mutating func encode(_ value: Int16) throws { try refuse() }
    mutating func encode(_ value: Int32) throws { try refuse() }
    mutating func encode(_ value: Int64) throws { try refuse() }
    mutating func encode(_ value: UInt) throws { try refuse() }
    mutating func encode(_ value: UInt8) throws { try refuse() }
    mutating func encode(_ value: UInt16) throws { try refuse() }
    mutating func encode(_ value: UInt32) throws { try refuse() }
    mutating func encode(_ value: UInt64) throws { try refuse() }
    mutating func encode<T: Encodable>(_ value: T) throws { try refuse() }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        encoder.refuse("a nested value")
        return KeyedEncodingContainer(RecordColumnWriter<NestedKey, Values>(encoder: RecordEncoder()))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        encoder.refuse("a nested list")
        return self
    }

    mutating func superEncoder() -> any Encoder {
        encoder.refuse("a superclass")
        return RecordEncoder<Values>()
    }
}
