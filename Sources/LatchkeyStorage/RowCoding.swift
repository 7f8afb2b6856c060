/// One row's values as a store read them, in its record's column order (`StoredRecord.columns`),
/// read one after another by the record's `init(row:)`: no generic decoding pass, no lookup by name.
///
/// A value of another kind than the property's (a changed schema, a damaged row) is a
/// `RowValueMismatch`, never a crash.
public struct RowReader {
    private let values: [StoreValue]
    private var index = 0

    public init(_ values: [StoreValue]) { self.values = values }

    private mutating func next() throws -> StoreValue {
        guard index < values.count else { throw RowValueMismatch(column: index, expected: "a value", found: "the row's end") }
        defer { index += 1 }
        return values[index]
    }

    private func mismatch(_ expected: String, _ found: StoreValue) -> RowValueMismatch {
        RowValueMismatch(column: index - 1, expected: expected, found: found.kind)
    }

    public mutating func text() throws -> String {
        let value = try next()
        guard case .text(let text) = value else { throw mismatch("text", value) }
        return text
    }

    public mutating func integer() throws -> Int64 {
        let value = try next()
        guard case .int(let number) = value else { throw mismatch("an integer", value) }
        return number
    }

    public mutating func int() throws -> Int {
        let number = try integer()
        guard let value = Int(exactly: number) else { throw mismatch("an integer of this platform", .int(number)) }
        return value
    }

    /// A flag: a boolean, or an integer (SQLite keeps flags as integers; not zero is true).
    public mutating func flag() throws -> Bool {
        let value = try next()
        switch value {
        case .bool(let flag): return flag
        case .int(let number): return number != 0
        default: throw mismatch("a flag", value)
        }
    }

    public mutating func bytes() throws -> [UInt8] {
        let value = try next()
        guard case .bytes(let bytes) = value else { throw mismatch("bytes", value) }
        return bytes
    }

    public mutating func optionalText() throws -> String? { try nullOr { try $0.text() } }
    public mutating func optionalInteger() throws -> Int64? { try nullOr { try $0.integer() } }
    public mutating func optionalInt() throws -> Int? { try nullOr { try $0.int() } }
    public mutating func optionalBytes() throws -> [UInt8]? { try nullOr { try $0.bytes() } }
    public mutating func optionalFlag() throws -> Bool? { try nullOr { try $0.flag() } }

    /// A value of a closed set kept as its text: one the set does not name is a mismatch (never a
    /// stand-in value).
    public mutating func value<Value: RawRepresentable>(_ type: Value.Type) throws -> Value where Value.RawValue == String {
        let text = try text()
        guard let value = Value(rawValue: text) else { throw RowValueMismatch(column: index - 1, expected: "a \(Value.self)", found: "another text") }
        return value
    }

    /// A value of a closed set kept as its number.
    public mutating func value<Value: RawRepresentable>(_ type: Value.Type) throws -> Value where Value.RawValue == Int {
        let number = try int()
        guard let value = Value(rawValue: number) else {
            throw RowValueMismatch(column: index - 1, expected: "a \(Value.self)", found: "another integer")
        }
        return value
    }

    /// Nil for a null, else what `read` reads.
    private mutating func nullOr<Value>(_ read: (inout RowReader) throws -> Value) throws -> Value? {
        if index < values.count, values[index] == .null {
            index += 1
            return nil
        }
        return try read(&self)
    }
}

/// A row's value was not of the kind its record's property holds: names the column by position
/// and the kinds, never the value (which may be key material).
public struct RowValueMismatch: Error, Sendable, CustomStringConvertible {
    public var column: Int
    public var expected: String
    public var found: String

    public var description: String { "column \(column): \(expected) expected, \(found) found" }
}

/// A record's values as its `encode(into:)` writes them, in its column order, for a store to bind.
public struct RowWriter {
    public private(set) var values: [StoreValue] = []

    public init(capacity: Int) { values.reserveCapacity(capacity) }

    /// Writes one value.
    public mutating func append(_ value: StoreValue) { values.append(value) }

    /// Writes each value, in order.
    @inlinable
    public mutating func put<each Value: ColumnValue>(_ value: repeat each Value) {
        repeat (each value).write(to: &self)
    }
}

/// What a record's property holds: text, an integer, a flag, bytes, or one of them or null.
public protocol ColumnValue {
    /// Writes the value as a store keeps it.
    func write(to row: inout RowWriter)
}

extension String: ColumnValue {
    @inlinable public func write(to row: inout RowWriter) { row.append(.text(self)) }
}

extension Int64: ColumnValue {
    @inlinable public func write(to row: inout RowWriter) { row.append(.int(self)) }
}

extension Int: ColumnValue {
    @inlinable public func write(to row: inout RowWriter) { row.append(.int(Int64(self))) }
}

extension Bool: ColumnValue {
    @inlinable public func write(to row: inout RowWriter) { row.append(.bool(self)) }
}

extension Array: ColumnValue where Element == UInt8 {
    @inlinable public func write(to row: inout RowWriter) { row.append(.bytes(self)) }
}

extension Optional: ColumnValue where Wrapped: ColumnValue {
    @inlinable
    public func write(to row: inout RowWriter) {
        if let value = self { value.write(to: &row) } else { row.append(.null) }
    }
}

extension StoredRecord {
    /// The record's values in its column order.
    public var rowValues: [StoreValue] {
        var row = RowWriter(capacity: Self.columns.count)
        encode(into: &row)
        return row.values
    }
}

extension StoreValue {
    /// The kind of a value, for messages (never the value).
    public var kind: String {
        switch self {
        case .null: "null"
        case .text: "text"
        case .int: "an integer"
        case .bool: "a boolean"
        case .bytes: "bytes"
        }
    }
}
