import Foundation
import GRDB

/// Decodes a record (`Decodable` with scalar properties only) from one row of `SELECT *`.
/// GRDB's own record decoder looks every column up by a lower-cased name; here each property
/// is matched by position first (the tables declare their columns in the records' order), then
/// by a scan of the names, and values are read without conversion through Foundation. A value
/// of the wrong type is a `DecodingError`, never a crash.
struct RecordDecoder: Decoder {
    let row: Row
    let columns: [String]

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Columns<Key>(row: row, columns: columns))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: [], debugDescription: "a row is not a list"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(Any.self, .init(codingPath: [], debugDescription: "a row is not a single value"))
    }
}

private final class Columns<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let row: Row
    let columns: [String]
    /// Where the next property is expected (properties come in column order).
    private var next = 0

    init(row: Row, columns: [String]) {
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

    private func value(_ key: Key) throws -> DatabaseValue {
        guard let index = index(key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: [key], debugDescription: "no column \(key.stringValue)"))
        }
        return row[index]
    }

    private func mismatch<T>(_ type: T.Type, _ key: Key, _ value: DatabaseValue) -> DecodingError {
        // Names the column and the kind only: a value may be key material.
        let kind: String
        switch value.storage {
        case .null: kind = "NULL"
        case .int64: kind = "an integer"
        case .double: kind = "a real"
        case .string: kind = "text"
        case .blob: kind = "a blob"
        }
        return DecodingError.typeMismatch(type, .init(codingPath: [key], debugDescription: "column \(key.stringValue) holds \(kind)"))
    }

    func contains(_ key: Key) -> Bool { columns.contains(key.stringValue) }

    func decodeNil(forKey key: Key) throws -> Bool { try value(key).isNull }

    /// The value read as one kind (`kind` answers nil for any other), else a type mismatch.
    @inline(__always)
    private func pick<T>(_ type: T.Type, _ key: Key, _ value: DatabaseValue, _ kind: (DatabaseValue.Storage) -> T?) throws -> T {
        guard let picked = kind(value.storage) else { throw mismatch(type, key, value) }
        return picked
    }

    private static func text(_ storage: DatabaseValue.Storage) -> String? {
        if case .string(let text) = storage { text } else { nil }
    }

    private static func integer(_ storage: DatabaseValue.Storage) -> Int64? {
        if case .int64(let number) = storage { number } else { nil }
    }

    private static func real(_ storage: DatabaseValue.Storage) -> Double? {
        switch storage {
        case .double(let number): number
        case .int64(let number): Double(number)
        default: nil
        }
    }

    private static func bytes(_ storage: DatabaseValue.Storage) -> [UInt8]? {
        if case .blob(let data) = storage { [UInt8](data) } else { nil }
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String { try pick(type, key, value(key), Self.text) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try pick(type, key, value(key), Self.integer) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(Int64.self, forKey: key) != 0 }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try pick(type, key, value(key), Self.real) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try decode(Double.self, forKey: key)) }

    private func integer<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) throws -> T {
        try pick(type, key, value(key)) { Self.integer($0).flatMap(T.init(exactly:)) }
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

    /// Byte arrays are BLOBs; records hold no other composite value. (Scalars reach here from
    /// the generic `decodeIfPresent`.)
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let decoded: Any
        switch type {
        case is [UInt8].Type: decoded = try pick([UInt8].self, key, value(key), Self.bytes)
        case is String.Type: decoded = try decode(String.self, forKey: key)
        case is Int64.Type: decoded = try decode(Int64.self, forKey: key)
        case is Int.Type: decoded = try decode(Int.self, forKey: key)
        case is Bool.Type: decoded = try decode(Bool.self, forKey: key)
        case is Double.Type: decoded = try decode(Double.self, forKey: key)
        default:
            throw DecodingError.typeMismatch(type, .init(codingPath: [key], debugDescription: "records hold scalars and byte arrays only"))
        }
        guard let typed = decoded as? T else {
            throw DecodingError.typeMismatch(type, .init(codingPath: [key], debugDescription: "column \(key.stringValue)"))
        }
        return typed
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        let value = try value(key)
        return value.isNull ? nil : try pick(type, key, value, Self.text)
    }

    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        let value = try value(key)
        return value.isNull ? nil : try pick(type, key, value, Self.integer)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let index = index(key) else { return nil }
        if row.hasNull(atIndex: index) { return nil }
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
