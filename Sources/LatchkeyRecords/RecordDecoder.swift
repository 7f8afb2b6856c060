/// One row of `SELECT *` as a store reads it: typed reads at a column index.
///
/// Each store adapts its own row (a thin struct over it, no copy) and decides which of its values read
/// as which kind; a read answers nil for a value of another kind (or an index past the row).
public protocol RecordRow {
    /// The number of values in the row.
    var count: Int { get }
    func isNull(at index: Int) -> Bool
    func int64(at index: Int) -> Int64?
    func double(at index: Int) -> Double?
    func string(at index: Int) -> String?
    func bool(at index: Int) -> Bool?
    func bytes(at index: Int) -> [UInt8]?
    /// The kind of the value, for an error message ("NULL", "an integer", "text"…): never the
    /// value itself, which may be key material.
    func kind(at index: Int) -> String
}

/// Decodes a record (`Decodable` with scalar properties and byte arrays only) from one row of `SELECT *`, for any store.
///
/// Each property is matched by position first (the tables declare their columns in the records' order),
/// then by a scan of the names; columns the record does not have (a store's insertion sequence) are
/// ignored. A value of the wrong kind is a `DecodingError`, never a crash. Generic over the row (not an
/// existential) so a store's use specialises: reads go straight to its row, without boxing a value per
/// column.
public struct RecordDecoder<Source: RecordRow>: Decoder {
    public let row: Source
    public let columns: [String]

    @inlinable
    public init(row: Source, columns: [String]) {
        self.row = row
        self.columns = columns
    }

    public var codingPath: [any CodingKey] { [] }
    public var userInfo: [CodingUserInfoKey: Any] { [:] }

    @inlinable
    public func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(RecordColumns<Key, Source>(row: row, columns: columns))
    }

    public func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: [], debugDescription: "a row is not a list"))
    }

    public func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(Any.self, .init(codingPath: [], debugDescription: "a row is not a single value"))
    }
}

@usableFromInline
final class RecordColumns<Key: CodingKey, Source: RecordRow>: KeyedDecodingContainerProtocol {
    @usableFromInline let row: Source
    @usableFromInline let columns: [String]
    /// Where the next property is expected (properties come in column order).
    @usableFromInline var next = 0

    @inlinable
    init(row: Source, columns: [String]) {
        self.row = row
        self.columns = columns
    }

    @usableFromInline var codingPath: [any CodingKey] { [] }
    @usableFromInline var allKeys: [Key] { columns.compactMap { Key(stringValue: $0) } }

    /// The column of `key` (nil: the row has no such column).
    @inlinable
    func index(_ key: Key) -> Int? {
        let name = key.stringValue
        if next < columns.count, columns[next] == name {
            next += 1
            return next - 1 < row.count ? next - 1 : nil
        }
        guard let found = columns.firstIndex(of: name) else { return nil }
        next = found + 1
        return found < row.count ? found : nil
    }

    @inlinable
    func column(_ key: Key) throws -> Int {
        guard let index = index(key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: [key], debugDescription: "no column \(key.stringValue)"))
        }
        return index
    }

    @usableFromInline
    func mismatch<T>(_ type: T.Type, _ key: Key, _ index: Int) -> DecodingError {
        // Names the column and the kind only: a value may be key material.
        DecodingError.typeMismatch(type, .init(codingPath: [key], debugDescription: "column \(key.stringValue) holds \(row.kind(at: index))"))
    }

    /// The value read as one kind (`read` answers nil for any other), else a type mismatch.
    @inlinable @inline(__always)
    func pick<T>(_ type: T.Type, _ key: Key, _ index: Int, _ read: (Source, Int) -> T?) throws -> T {
        guard let picked = read(row, index) else { throw mismatch(type, key, index) }
        return picked
    }

    @usableFromInline func contains(_ key: Key) -> Bool { columns.contains(key.stringValue) }

    @inlinable func decodeNil(forKey key: Key) throws -> Bool { row.isNull(at: try column(key)) }

    @inlinable func decode(_ type: String.Type, forKey key: Key) throws -> String { try pick(type, key, column(key)) { $0.string(at: $1) } }
    @inlinable func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try pick(type, key, column(key)) { $0.int64(at: $1) } }
    @inlinable func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try pick(type, key, column(key)) { $0.bool(at: $1) } }
    @inlinable func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try pick(type, key, column(key)) { $0.double(at: $1) } }
    @inlinable func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try decode(Double.self, forKey: key)) }

    @inlinable
    func integer<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) throws -> T {
        try pick(type, key, column(key)) { row, index in row.int64(at: index).flatMap(T.init(exactly:)) }
    }

    @inlinable func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, key) }
    @inlinable func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
    @inlinable func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
    @inlinable func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
    @inlinable func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
    @inlinable func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
    @inlinable func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
    @inlinable func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
    @inlinable func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }

    /// Byte arrays are blobs (bytea); records hold no other composite value. (Scalars reach here
    /// from the generic `decodeIfPresent`.)
    @inlinable
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let decoded: Any
        switch type {
        case is [UInt8].Type: decoded = try pick([UInt8].self, key, column(key)) { $0.bytes(at: $1) }
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

    @inlinable
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        let index = try column(key)
        return row.isNull(at: index) ? nil : try pick(type, key, index) { $0.string(at: $1) }
    }

    @inlinable
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        let index = try column(key)
        return row.isNull(at: index) ? nil : try pick(type, key, index) { $0.int64(at: $1) }
    }

    @inlinable
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let index = index(key) else { return nil }
        if row.isNull(at: index) { return nil }
        next = index
        return try decode(type, forKey: key)
    }

    @usableFromInline
    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw DecodingError.typeMismatch(type, .init(codingPath: [key], debugDescription: "records hold no nested values"))
    }

    @usableFromInline
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: [key], debugDescription: "records hold no nested values"))
    }

    @usableFromInline
    func superDecoder() throws -> any Decoder {
        throw DecodingError.typeMismatch(Any.self, .init(codingPath: [], debugDescription: "records have no superclass"))
    }

    @usableFromInline
    func superDecoder(forKey key: Key) throws -> any Decoder {
        throw DecodingError.typeMismatch(Any.self, .init(codingPath: [key], debugDescription: "records have no superclass"))
    }
}
