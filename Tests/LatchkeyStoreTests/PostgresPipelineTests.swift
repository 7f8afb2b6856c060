import Foundation
import Testing

@testable import LatchkeyCore
@testable import LatchkeyPostgres
@testable import LatchkeySimulator

/// A row of a table only these tests use: a CHECK constraint gives a write that fails on the
/// server, after the statements before it went out.
private struct ProbeRow: StoredRecord {
    static let table = "pipeline_probe"
    static let columns = Columns.allCases.map(\.rawValue)
    var id: String
    var n: Int64

    enum Columns: String, CaseIterable { case id, n }
}

extension ProbeRow {
    init(row: inout RowReader) throws {
        id = try row.text()
        n = try row.integer()
    }

    func encode(into row: inout RowWriter) {
        row.put(id)
        row.put(n)
    }
}

/// The PostgreSQL transaction queues its writes and sends them with the next read or with COMMIT
/// (libpq's pipeline mode): a write that fails there must still fail the whole transaction.
@Suite(.enabled(if: StoreUnderTest.postgresURI != nil, "LATCHKEY_TEST_POSTGRES is not set (make test starts a cluster and sets it)"))
struct PostgresPipelineTests {
    private let tag = UUID().uuidString.prefix(8).lowercased()

    private func store() throws -> PostgresStore {
        let uri = try #require(StoreUnderTest.postgresURI)
        let connection = try PostgresConnection(conninfo: uri)
        // Under a lock: two tests creating the table at once could collide in the catalog (23505).
        // (Three round trips: the lock must outlive the CREATE's commit.)
        try connection.execute("SELECT pg_advisory_lock(7)")
        try connection.execute(
            "CREATE TABLE IF NOT EXISTS pipeline_probe (id TEXT PRIMARY KEY, n BIGINT NOT NULL CHECK (n >= 0), \"_seq\" BIGSERIAL)")
        try connection.execute("SELECT pg_advisory_unlock(7)")
        return try PostgresStore(conninfo: uri, key: Array(repeating: 7, count: 32))
    }

    private func row(_ name: String, _ n: Int64) -> ProbeRow { ProbeRow(id: "\(tag)-\(name)", n: n) }

    private func stored(_ store: PostgresStore, _ name: String) throws -> ProbeRow? {
        try store.read { tx in try tx.fetch(ProbeRow.self, id: "\(tag)-\(name)") }
    }

    @Test func aWriteRefusedAtCommitWritesNothing() throws {
        let store = try store()
        #expect(throws: (any Error).self) {
            try store.write { tx in
                try tx.save(row("a", 1))
                try tx.save(row("b", -1))
            }
        }
        #expect(try stored(store, "a") == nil)
        #expect(try stored(store, "b") == nil)
    }

    @Test func aWriteRefusedBeforeAReadFailsTheTransactionEvenWhenTheBodySwallowsIt() throws {
        let store = try store()
        #expect(throws: (any Error).self) {
            try store.write { tx in
                try tx.save(row("a", 1))
                try tx.save(row("b", -1))
                // The read carries the queued writes; the body ignores its failure.
                _ = try? tx.fetch(ProbeRow.self, id: "\(tag)-a")
                try tx.save(row("c", 3))
            }
        }
        for name in ["a", "b", "c"] { #expect(try stored(store, name) == nil) }
    }

    @Test func aTransactionReadsItsOwnQueuedWritesInOrder() throws {
        let store = try store()
        let seen = try store.write { tx -> [Int64] in
            try tx.save(row("a", 1))
            try tx.save(row("a", 2))
            let first = try tx.fetch(ProbeRow.self, id: "\(tag)-a")?.n
            try tx.delete(ProbeRow.self, id: "\(tag)-a")
            let second = try tx.fetch(ProbeRow.self, id: "\(tag)-a")?.n
            try tx.save(row("a", 5))
            return [first ?? -1, second ?? -1]
        }
        #expect(seen == [2, -1])
        #expect(try stored(store, "a")?.n == 5)
    }

    /// A statement whose preparation travelled in a pipeline the server abandoned is prepared
    /// again next time (the connection does not believe it exists).
    @Test func aPreparationLostInAnAbortedPipelineIsMadeAgain() throws {
        let store = try store()
        let filter = [StoreFilter(ProbeRow.Columns.n, .greaterOrEqual, .int(1_000_000))]
        #expect(throws: (any Error).self) {
            try store.write { tx in
                try tx.save(row("bad", -1))
                _ = try tx.count(ProbeRow.self, where: filter)
            }
        }
        try store.write { tx in
            try tx.save(row("good", 1))
            _ = try tx.count(ProbeRow.self, where: filter)
        }
        #expect(try stored(store, "good")?.n == 1)
    }

    @Test func aBodyThatOnlyWritesCommitsAndALaterCallSeesIt() throws {
        let store = try store()
        try store.write { tx in
            for n in 1...5 { try tx.save(row("w\(n)", Int64(n))) }
        }
        let total = try store.read { tx in
            try tx.fetchAll(ProbeRow.self, where: [.equals(ProbeRow.Columns.id, "\(tag)-w3")]).map(\.n)
        }
        #expect(total == [3])
        #expect(try stored(store, "w5")?.n == 5)
    }

    /// Writes to different tables travel as one statement: one that fails there fails the others.
    @Test func aWriteRefusedBesideAWriteToAnotherTableWritesNeither() throws {
        let store = try store()
        let item = DeviceItemRecord(id: "\(tag)-item", deviceId: "\(tag)-d", name: "n", value: [1], thisDeviceOnly: true)
        #expect(throws: (any Error).self) {
            try store.write { tx in
                try tx.save(item)
                try tx.save(row("bad", -1))
            }
        }
        #expect(try store.read { tx in try tx.fetch(DeviceItemRecord.self, id: "\(tag)-item") } == nil)
        try store.write { tx in
            try tx.save(item)
            try tx.save(row("good", 1))
            try tx.delete(DeviceItemRecord.self, id: "\(tag)-none")
        }
        #expect(try store.read { tx in try tx.fetch(DeviceItemRecord.self, id: "\(tag)-item") }?.value == [1])
        #expect(try stored(store, "good")?.n == 1)
    }

    /// A row read and then removed by another transaction before this one writes it: the write
    /// (an UPDATE of a row the transaction has seen) fails as a serialization failure, and the body
    /// runs again on a snapshot without the row.
    @Test func aRowRemovedAfterItWasReadRunsTheBodyAgain() throws {
        let store = try store()
        let other = try self.store()
        try store.write { tx in try tx.save(row("r", 1)) }
        let attempts = Failures()
        let outcome = try store.write { tx -> String in
            attempts.add()
            guard var read = try tx.fetch(ProbeRow.self, id: "\(tag)-r") else { return "gone" }
            if attempts.count == 1 { try other.write { tx in try tx.delete(ProbeRow.self, id: "\(tag)-r") } }
            read.n += 1
            try tx.save(read)
            return "saved"
        }
        #expect(outcome == "gone")
        #expect(attempts.count == 2)
        #expect(try stored(store, "r") == nil)
    }

    @Test func placeholdersAreNumberedOnAndWritesToOneTableStayApart() {
        #expect(PostgresStatement.renumbered("a = $1, b = $10 WHERE c = $2 AND d = '$x'", after: 3) == "a = $4, b = $13 WHERE c = $5 AND d = '$x'")
        #expect(PostgresStatement.renumbered("$1", after: 0) == "$1")
        let texts = PostgresStatementTexts()
        func write(_ table: String, _ count: Int) -> PostgresStatement {
            PostgresStatement(
                sql: "W \(table) " + (1...count).map { "$\($0)" }.joined(separator: ","), parameters: Array(repeating: .int(1), count: count),
                writes: table)
        }
        let read = PostgresStatement(sql: "R", parameters: [])
        let out = PostgresStatement.combiningWrites([write("a", 2), write("b", 1), write("a", 1), read, write("c", 1)], texts: texts)
        #expect(out.map(\.sql) == [#"WITH "w0" AS (W a $1,$2), "w1" AS (W b $3) SELECT"#, "W a $1", "R", "W c $1"])
        #expect(out.map(\.parameters.count) == [3, 1, 0, 1])
    }
}
