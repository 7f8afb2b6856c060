/// Encodes a record (scalars and byte arrays only) into its columns, in property order: nil
/// as NULL (a save clears what became nil), byte arrays as bytea. Anything else is an
/// `EncodingError`, never a crash.
final class PostgresRecordEncoder: Encoder {
    private(set) var names: [String] = []
    private(set) var values: [PostgresValue] = []
    fileprivate var failure: EncodingError?

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The record's columns and values.
    static func columns<R: Encodable>(of record: R) throws -> (names: [String], values: [PostgresValue]) {
        let encoder = PostgresRecordEncoder()
        try record.encode(to: encoder)
        if let failure = encoder.failure { throw failure }
        return (encoder.names, encoder.values)
    }

    fileprivate func append(_ key: some CodingKey, _ value: PostgresValue) {
        names.append(key.stringValue)
        values.append(value)
    }

    fileprivate func refuse(_ what: String) {
        if failure == nil {
            failure = EncodingError.invalidValue(what, .init(codingPath: [], debugDescription: "records hold scalars and byte arrays only: \(what)"))
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(PostgresColumnWriter<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        refuse("a list at the top")
        return PostgresRefusingContainer(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        refuse("a single value at the top")
        return PostgresRefusingContainer(encoder: self)
    }
}

private struct PostgresColumnWriter<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: PostgresRecordEncoder
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws { encoder.append(key, .null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { encoder.append(key, .bool(value)) }
    mutating func encode(_ value: String, forKey key: Key) throws { encoder.append(key, .text(value)) }
    mutating func encode(_ value: Double, forKey key: Key) throws { encoder.refuse("a real at \(key.stringValue)") }
    mutating func encode(_ value: Float, forKey key: Key) throws { encoder.refuse("a real at \(key.stringValue)") }
    mutating func encode(_ value: Int, forKey key: Key) throws { encoder.append(key, .int(Int64(value))) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { encoder.append(key, .int(Int64(value))) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { encoder.append(key, .int(Int64(value))) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { encoder.append(key, .int(Int64(value))) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { encoder.append(key, .int(value)) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try exact(Int64(exactly: value), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { encoder.append(key, .int(Int64(value))) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { encoder.append(key, .int(Int64(value))) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { encoder.append(key, .int(Int64(value))) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try exact(Int64(exactly: value), key) }

    private func exact(_ value: Int64?, _ key: Key) throws {
        guard let value else {
            throw EncodingError.invalidValue(key.stringValue, .init(codingPath: [key], debugDescription: "too large for a 64-bit column"))
        }
        encoder.append(key, .int(value))
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        switch value {
        case let bytes as [UInt8]: encoder.append(key, .bytes(bytes))
        case let text as String: encoder.append(key, .text(text))
        case let number as Int64: encoder.append(key, .int(number))
        case let number as Int: encoder.append(key, .int(Int64(number)))
        case let flag as Bool: encoder.append(key, .bool(flag))
        default:
            throw EncodingError.invalidValue(key.stringValue, .init(codingPath: [key], debugDescription: "records hold scalars and byte arrays only"))
        }
    }

    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        guard let value else { return encoder.append(key, .null) }
        try encode(value, forKey: key)
    }

    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { encoder.append(key, value.map { .text($0) } ?? .null) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { encoder.append(key, value.map { .int($0) } ?? .null) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { encoder.append(key, value.map { .int(Int64($0)) } ?? .null) }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { encoder.append(key, value.map { .bool($0) } ?? .null) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        encoder.refuse("a nested value at \(key.stringValue)")
        return KeyedEncodingContainer(PostgresColumnWriter<NestedKey>(encoder: PostgresRecordEncoder()))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder.refuse("a nested list at \(key.stringValue)")
        return PostgresRefusingContainer(encoder: encoder)
    }

    mutating func superEncoder() -> any Encoder {
        encoder.refuse("a superclass")
        return PostgresRecordEncoder()
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        encoder.refuse("a superclass at \(key.stringValue)")
        return PostgresRecordEncoder()
    }
}

/// What the encoder hands out for shapes a record cannot have: every write fails.
private struct PostgresRefusingContainer: UnkeyedEncodingContainer, SingleValueEncodingContainer {
    let encoder: PostgresRecordEncoder
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
        return KeyedEncodingContainer(PostgresColumnWriter<NestedKey>(encoder: PostgresRecordEncoder()))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        encoder.refuse("a nested list")
        return self
    }

    mutating func superEncoder() -> any Encoder {
        encoder.refuse("a superclass")
        return PostgresRecordEncoder()
    }
}
