import Foundation
import GRDB
import LatchkeyCore
import LatchkeyRecords

/// A GRDB row as the shared `RecordDecoder` reads it (LatchkeyRecords/RecordDecoder.swift).
///
/// GRDB's own record decoder looks every column up by a lower-cased name; the shared one matches by
/// position first, and this adapter reads SQLite's storage classes without conversion through
/// Foundation: integers are integers (and booleans, non-zero is true), reals also read integers, text
/// is text, byte arrays are blobs.
struct SQLiteRecordRow: RecordRow {
    let row: Row

    var count: Int { row.count }

    @inline(__always)
    private func storage(_ index: Int) -> DatabaseValue.Storage? {
        index >= 0 && index < row.count ? (row[index] as DatabaseValue).storage : nil
    }

    func isNull(at index: Int) -> Bool { index >= 0 && index < row.count ? row.hasNull(atIndex: index) : true }

    func int64(at index: Int) -> Int64? {
        if case .int64(let number)? = storage(index) { number } else { nil }
    }

    func double(at index: Int) -> Double? {
        switch storage(index) {
        case .double(let number)?: number
        case .int64(let number)?: Double(number)
        default: nil
        }
    }

    func string(at index: Int) -> String? {
        if case .string(let text)? = storage(index) { text } else { nil }
    }

    func bool(at index: Int) -> Bool? { int64(at: index).map { $0 != 0 } }

    func bytes(at index: Int) -> [UInt8]? {
        if case .blob(let data)? = storage(index) { [UInt8](data) } else { nil }
    }

    func kind(at index: Int) -> String {
        switch storage(index) {
        case .null?, nil: "NULL"
        case .int64?: "an integer"
        case .double?: "a real"
        case .string?: "text"
        case .blob?: "a blob"
        }
    }
}

extension RecordDecoder where Source == SQLiteRecordRow {
    /// Decodes from one GRDB row of `SELECT *`.
    init(row: Row, columns: [String]) {
        self.init(row: SQLiteRecordRow(row: row), columns: columns)
    }
}
