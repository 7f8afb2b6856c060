import LatchkeyCore
import LatchkeyRecords

/// A PostgreSQL result row as the shared `RecordDecoder` reads it
/// (LatchkeyRecords/RecordDecoder.swift): integers and booleans read as each other (0/1,
/// non-zero is true), reals read integers (the tables have no real columns), text is text,
/// byte arrays are bytea.
struct PostgresRecordRow: RecordRow {
    let values: [PostgresValue]

    var count: Int { values.count }

    @inline(__always)
    private func value(_ index: Int) -> PostgresValue? {
        index >= 0 && index < values.count ? values[index] : nil
    }

    func isNull(at index: Int) -> Bool {
        if case .null? = value(index) { true } else { value(index) == nil }
    }

    func int64(at index: Int) -> Int64? {
        switch value(index) {
        case .int(let number)?: number
        case .bool(let flag)?: flag ? 1 : 0
        default: nil
        }
    }

    func double(at index: Int) -> Double? { int64(at: index).map(Double.init) }

    func string(at index: Int) -> String? {
        if case .text(let text)? = value(index) { text } else { nil }
    }

    func bool(at index: Int) -> Bool? {
        switch value(index) {
        case .bool(let flag)?: flag
        case .int(let number)?: number != 0
        default: nil
        }
    }

    func bytes(at index: Int) -> [UInt8]? {
        if case .bytes(let bytes)? = value(index) { bytes } else { nil }
    }

    func kind(at index: Int) -> String {
        switch value(index) {
        case .null?, nil: "NULL"
        case .int?: "an integer"
        case .bool?: "a boolean"
        case .text?: "text"
        case .bytes?: "bytes"
        }
    }
}

extension RecordDecoder where Source == PostgresRecordRow {
    /// Decodes from one result row of `SELECT *`.
    init(row: [PostgresValue], columns: [String]) {
        self.init(row: PostgresRecordRow(values: row), columns: columns)
    }
}
