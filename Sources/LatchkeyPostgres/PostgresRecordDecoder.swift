/// Decodes a record (scalars and byte arrays only) from one row of `SELECT *`. Each property is
/// matched by position first (the tables declare their columns in the records' order), then by
/// name; columns the record does not have (the insertion sequence) are ignored. A value of the
/// wrong type is a `DecodingError`, never a crash.
struct PostgresRecordDecoder: Decoder {
    let row: [PostgresValue]
    let columns: [String]

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(PostgresColumns<Key>(row: row, columns: columns))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: [], debugDescription: "a row is not a list"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(Any.self, .init(codingPath: [], debugDescription: "a row is not a single value"))
    }
}

private final class PostgresColumns<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let row: [PostgresValue]
    let columns: [String]
    private var next = 0

    init(row: [PostgresValue], columns: [String]) {
        self.row = row
        self.columns = columns
    }

    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { columns.compactMap { Key(stringValue: $0) } }

    private func index(_ key: Key) -> Int? {
        let name = key.stringValue
        if next < columns.count, columns[next] == name {
            next += 1
            return next - 1
        }
        guard let found = columns.firstIndex(of: name) else { return nil }
        next = found + 1
        return found
    }

    private func value(_ key: Key) throws -> PostgresValue {
        guard let index = index(key), index < row.count else {
            throw DecodingError.keyNotFound(key, .init(codingPath: [key], debugDescription: "no column \(key.stringValue)"))
        }
        return row[index]
    }

    private func mismatch<T>(_ type: T.Type, _ key: Key, _ value: PostgresValue) -> DecodingError {
        // Names the column and the kind only: a value may be key material.
        let kind: String
        switch value {
        case .null: kind = "NULL"
        case .int: kind = "an integer"
        case .bool: kind = "a boolean"
        case .text: kind = "text"
        case .bytes: kind = "bytes"
        }
        return DecodingError.typeMismatch(type, .init(codingPath: [key], debugDescription: "column \(key.stringValue) holds \(kind)"))
    }

    func contains(_ key: Key) -> Bool { columns.contains(key.stringValue) }
    func decodeNil(forKey key: Key) throws -> Bool { try value(key) == .null }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        let value = try value(key)
        guard case .text(let text) = value else { throw mismatch(type, key, value) }
        return text
    }

    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        let value = try value(key)
        switch value {
        case .int(let number): return number
        case .bool(let flag): return flag ? 1 : 0
        default: throw mismatch(type, key, value)
        }
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        let value = try value(key)
        switch value {
        case .bool(let flag): return flag
        case .int(let number): return number != 0
        default: throw mismatch(type, key, value)
        }
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { Double(try decode(Int64.self, forKey: key)) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try decode(Int64.self, forKey: key)) }

    private func integer<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) throws -> T {
        let number = try decode(Int64.self, forKey: key)
        guard let exact = T(exactly: number) else { throw mismatch(type, key, .int(number)) }
        return exact
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let decoded: Any
        switch type {
        case is [UInt8].Type:
            let value = try value(key)
            guard case .bytes(let bytes) = value else { throw mismatch(type, key, value) }
            decoded = bytes
        case is String.Type: decoded = try decode(String.self, forKey: key)
        case is Int64.Type: decoded = try decode(Int64.self, forKey: key)
        case is Int.Type: decoded = try decode(Int.self, forKey: key)
        case is Bool.Type: decoded = try decode(Bool.self, forKey: key)
        default:
            throw DecodingError.typeMismatch(type, .init(codingPath: [key], debugDescription: "records hold scalars and byte arrays only"))
        }
        guard let typed = decoded as? T else {
            throw DecodingError.typeMismatch(type, .init(codingPath: [key], debugDescription: "column \(key.stringValue)"))
        }
        return typed
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let index = index(key), index < row.count else { return nil }
        if row[index] == .null { return nil }
        next = index
        return try decode(type, forKey: key)
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let index = index(key), index < row.count else { return nil }
        if row[index] == .null { return nil }
        next = index
        return try decode(type, forKey: key)
    }

    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        guard let index = index(key), index < row.count else { return nil }
        if row[index] == .null { return nil }
        next = index
        return try decode(type, forKey: key)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw DecodingError.typeMismatch(type, .init(codingPath: [key], debugDescription: "records hold no nested values"))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: [key], debugDescription: "records hold no nested values"))
    }

    func superDecoder() throws -> any Decoder {
        throw DecodingError.typeMismatch(Any.self, .init(codingPath: [], debugDescription: "records have no superclass"))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        throw DecodingError.typeMismatch(Any.self, .init(codingPath: [key], debugDescription: "records have no superclass"))
    }
}
