import GRDB
import Testing

@testable import LatchkeyCore
@testable import LatchkeySimulator
@testable import LatchkeyStore

/// Rows made from a table's schema (SQLite's declared types): a value of each column's kind, or a
/// null where the column allows one; a column a record reads as a closed set, one of its values.
enum RowSamples {
    /// The columns records read as a closed set (`RowReader.value`), by table and column.
    static let closedSets: [String: StoreValue] = [
        "device.biometry": .text("touchId"), "device.biometricOutcome": .text("noMatch"), "account_recovery.state": .int(3),
    ]

    /// The values of a row of `R`'s table, each distinct.
    static func values<R: StoredRecord>(_ type: R.Type, nulls: Bool) throws -> [StoreValue] {
        let queue = try DatabaseQueue()
        try Migrations.migrator.migrate(queue)
        let columns = try queue.read { db in try db.columns(in: R.table) }
        return columns.enumerated().map { index, column in
            if nulls, !column.isNotNull, column.name != "id" { return .null }
            if let value = closedSets["\(R.table).\(column.name)"] { return value }
            switch column.type.uppercased() {
            case "TEXT": return .text("\(column.name)-\(index)")
            case "BLOB": return .bytes([UInt8(index), 0, 255])
            default: return .int(Int64(index % 2))
            }
        }
    }

    /// A record of `R` read from such a row.
    static func record<R: StoredRecord>(_ type: R.Type, nulls: Bool) throws -> R {
        var row = RowReader(try values(R.self, nulls: nulls))
        return try R(row: &row)
    }
}

/// Each record reads its row and writes it back as it was, value for value, with and without the
/// nulls its table allows; a value of another kind is an error, never a crash.
@Suite struct RowCodingTests {
    @Test func everyRecordWritesBackTheRowItRead() throws {
        for type in allRecordTypes {
            for nulls in [false, true] { try Self.roundTrip(type, nulls: nulls) }
        }
    }

    private static func roundTrip<R: StoredRecord>(_ type: R.Type, nulls: Bool) throws {
        let values = try RowSamples.values(R.self, nulls: nulls)
        var row = RowReader(values)
        let record = try R(row: &row)
        // SQLite keeps flags as integers: compare as it would store them.
        let written = record.rowValues.map { value -> StoreValue in
            if case .bool(let flag) = value { return .int(flag ? 1 : 0) }
            return value
        }
        #expect(written == values, "\(R.table), nulls: \(nulls)")
    }

    @Test func aValueOfAnotherKindIsAnError() throws {
        var values = try RowSamples.values(DeviceItemRecord.self, nulls: false)
        values[3] = .text("not bytes")
        var row = RowReader(values)
        #expect(throws: RowValueMismatch.self) { try DeviceItemRecord(row: &row) }
        var short = RowReader(Array(values.prefix(2)))
        #expect(throws: RowValueMismatch.self) { try DeviceItemRecord(row: &short) }
    }

    /// A text or number a closed set does not name reads as no value of it (never as `none`).
    @Test func aValueOutsideAClosedSetIsAnError() throws {
        var device = try RowSamples.values(DeviceRecord.self, nulls: false)
        device[1] = .text("irisScan")
        var row = RowReader(device)
        #expect(throws: RowValueMismatch.self) { try DeviceRecord(row: &row) }
        var recovery = try RowSamples.values(AccountRecoveryRecord.self, nulls: false)
        recovery[1] = .int(9)
        var other = RowReader(recovery)
        #expect(throws: RowValueMismatch.self) { try AccountRecoveryRecord(row: &other) }
    }
}
