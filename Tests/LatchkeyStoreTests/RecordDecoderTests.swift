import Foundation
import GRDB
import Testing

@testable import LatchkeyCore
@testable import LatchkeyRecords
@testable import LatchkeyStore

/// The row decoder: by position, by name when the order differs, and errors (never crashes)
/// for what a record cannot hold.
@Suite struct RecordDecoderTests {
    struct Sample: Codable, Equatable {
        var id: String
        var count: Int64
        var small: Int
        var flag: Bool
        var note: String?
        var when: Int64?
        var bytes: [UInt8]
        var maybeBytes: [UInt8]?
    }

    private func decode<T: Decodable>(_ type: T.Type, _ sql: String) throws -> T? {
        let queue = try DatabaseQueue()
        return try queue.read { db in
            let statement = try db.makeStatement(sql: sql)
            let rows = try Row.fetchCursor(statement)
            guard let row = try rows.next() else { return nil }
            return try T(from: RecordDecoder(row: row, columns: statement.columnNames))
        }
    }

    @Test func decodesEveryKindInColumnOrder() throws {
        let sample = try decode(
            Sample.self,
            """
            SELECT 'a' AS id, 5 AS count, 7 AS small, 1 AS flag, NULL AS note, 9 AS "when", X'00FF' AS bytes, NULL AS maybeBytes
            """)
        #expect(sample == Sample(id: "a", count: 5, small: 7, flag: true, note: nil, when: 9, bytes: [0, 255], maybeBytes: nil))
    }

    @Test func decodesColumnsInAnotherOrder() throws {
        let sample = try decode(
            Sample.self,
            """
            SELECT X'' AS maybeBytes, X'01' AS bytes, NULL AS "when", 'n' AS note, 0 AS flag, -1 AS small, 3 AS count, 'b' AS id
            """)
        #expect(sample == Sample(id: "b", count: 3, small: -1, flag: false, note: "n", when: nil, bytes: [1], maybeBytes: []))
    }

    @Test func wrongKindsAreErrorsNotCrashes() throws {
        // Text where an integer belongs, NULL where a value is required, a missing column,
        // text where bytes belong (a v1-era row that escaped migration).
        let broken = [
            "SELECT 'a' AS id, 'five' AS count, 7 AS small, 1 AS flag, NULL AS note, NULL AS \"when\", X'00' AS bytes, NULL AS maybeBytes",
            "SELECT NULL AS id, 5 AS count, 7 AS small, 1 AS flag, NULL AS note, NULL AS \"when\", X'00' AS bytes, NULL AS maybeBytes",
            "SELECT 'a' AS id, 5 AS count, 1 AS flag, NULL AS note, NULL AS \"when\", X'00' AS bytes, NULL AS maybeBytes",
            "SELECT 'a' AS id, 5 AS count, 7 AS small, 1 AS flag, NULL AS note, NULL AS \"when\", '[1,2]' AS bytes, NULL AS maybeBytes",
            "SELECT 'a' AS id, 5 AS count, 7 AS small, 1 AS flag, 3.5 AS note, NULL AS \"when\", X'00' AS bytes, NULL AS maybeBytes",
        ]
        for sql in broken {
            #expect(throws: DecodingError.self) { _ = try decode(Sample.self, sql) }
        }
    }

    @Test func anIntegerTooLargeForIntIsAnError() throws {
        struct Narrow: Decodable { var small: Int8 }
        #expect(throws: DecodingError.self) { _ = try decode(Narrow.self, "SELECT 300 AS small") }
    }
}
