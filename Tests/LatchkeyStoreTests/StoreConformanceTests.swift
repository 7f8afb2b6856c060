import Foundation
import Testing

@testable import LatchkeyCore
@testable import LatchkeyPostgres
@testable import LatchkeySimulator
@testable import LatchkeyStore

/// The stores the conformance suite runs on: a SQLite file always, and PostgreSQL when
/// `LATCHKEY_TEST_POSTGRES` names a database (`make test` starts a private cluster and sets it).
enum StoreUnderTest: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite, postgresql

    var testDescription: String { rawValue }

    static var postgresURI: String? {
        ProcessInfo.processInfo.environment["LATCHKEY_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A store of this kind; two calls give two handles (two connections) on the same data.
    ///
    /// With no PostgreSQL database named, a PostgreSQL case is cancelled (Swift Testing's skip of one
    /// case of a parameterized test), with a warning that says so.
    func open(_ place: String) throws -> Store {
        switch self {
        case .sqlite: return try SQLiteStore.file(at: place + "/store.sqlite")
        case .postgresql:
            guard let uri = Self.postgresURI else {
                // The console shows a cancelled case as passed: the warning says it was skipped.
                let why: Comment = "skipped on PostgreSQL: LATCHKEY_TEST_POSTGRES is not set (make test starts a cluster and sets it)"
                Issue.record(why, severity: .warning)
                try Test.cancel(why)
            }
            return try PostgresStore(conninfo: uri, key: Array(repeating: 7, count: 32))
        }
    }

    static func place() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-conformance-\(UUID().uuidString)").path
    }
}

/// PostgreSQL alone: its key stays out of the database, the schema is migrated once, and a
/// server that cannot be reached is `StoreUnavailable`.
@Suite struct PostgresStoreTests {
    @Test func anUnreachablePostgresIsStoreUnavailable() throws {
        #expect(throws: StoreUnavailable.self) {
            _ = try PostgresStore(conninfo: "postgresql:///postgres?host=/nonexistent-latchkey&user=postgres", key: [])
        }
    }

    @Test(.enabled(if: StoreUnderTest.postgresURI != nil, "LATCHKEY_TEST_POSTGRES is not set (make test starts a cluster and sets it)"))
    func thePostgresStoreKeepsItsKeyOutOfTheDatabaseAndMigratesOnce() throws {
        let uri = try #require(StoreUnderTest.postgresURI)
        let key = (0..<32).map { UInt8($0) }
        let stores = try (0..<3).map { _ in try PostgresStore(conninfo: uri, key: key) }
        #expect(try stores[0].secretKey { [] } == key)
        #expect(stores[0].kind == .postgresql)
        let connection = try PostgresConnection(conninfo: uri)
        let migrations = try connection.execute("SELECT count(*) FROM latchkey_migration")
        #expect(migrations.rows.first?.first == .int(Int64(PostgresMigrations.all.count)))
    }

    /// Each record's columns are its PostgreSQL table's, in table order (with `_seq` besides).
    @Test(.enabled(if: StoreUnderTest.postgresURI != nil, "LATCHKEY_TEST_POSTGRES is not set (make test starts a cluster and sets it)"))
    func everyRecordListsItsPostgresTablesColumnsInOrder() throws {
        let uri = try #require(StoreUnderTest.postgresURI)
        _ = try PostgresStore(conninfo: uri, key: Array(repeating: 7, count: 32))
        let connection = try PostgresConnection(conninfo: uri)
        for type in allRecordTypes {
            let rows = try connection.query(
                "SELECT column_name FROM information_schema.columns WHERE table_name = $1 AND table_schema = current_schema() "
                    + "ORDER BY ordinal_position",
                [.text(type.table)])
            let columns = rows.rows.compactMap { row -> String? in if case .text(let name)? = row.first { name } else { nil } }
            #expect(columns.filter { $0 != "_seq" } == type.columns, "\(type.table)")
        }
    }
}

/// What the domain relies on from `Store`, each check written once and run on every kind of store
/// (`StoreUnderTest`): PostgreSQL's cases are cancelled, and reported as skipped, when
/// `LATCHKEY_TEST_POSTGRES` names no database.
@Suite struct StoreConformanceTests {
    /// Ids unique to one test, so tests share a PostgreSQL database without seeing each other.
    private let tag = UUID().uuidString.prefix(8).lowercased()

    private func item(_ n: Int, device: String, value: [UInt8] = [0, 1, 255], local: Bool = true) -> DeviceItemRecord {
        DeviceItemRecord(id: "\(tag)-item-\(n)", deviceId: "\(tag)-\(device)", name: "n\(n)", value: value, thisDeviceOnly: local)
    }

    @Test(arguments: StoreUnderTest.allCases) func savedRecordsReadBackWithBytesFlagsAndNulls(_ kind: StoreUnderTest) throws {
        let store = try kind.open(StoreUnderTest.place())
        let bytes = (0...255).map { UInt8($0) }
        try store.write { tx in
            try tx.save(item(1, device: "d", value: bytes, local: false))
            try tx.save(AccountRecoveryRecord(id: "\(tag)-u", state: .gracePeriod, reason: 0, startTime: 10, endTime: nil))
        }
        let (read, recovery) = try store.read { tx in
            (try tx.fetch(DeviceItemRecord.self, id: "\(tag)-item-1"), try tx.fetch(AccountRecoveryRecord.self, id: "\(tag)-u"))
        }
        #expect(read?.value == bytes)
        #expect(read?.thisDeviceOnly == false)
        #expect(recovery?.endTime == nil)
        #expect(recovery?.state == .gracePeriod)
        #expect(try store.read { tx in try tx.fetch(DeviceItemRecord.self, id: "\(tag)-missing") } == nil)
    }

    @Test(arguments: StoreUnderTest.allCases) func saveReplacesInPlaceAndFetchAllKeepsInsertionOrder(_ kind: StoreUnderTest) throws {
        let store = try kind.open(StoreUnderTest.place())
        try store.write { tx in
            for n in 1...4 { try tx.save(item(n, device: "d")) }
            try tx.save(item(2, device: "d", value: [9]))
        }
        let filter = [StoreFilter.equals(DeviceItemRecord.Columns.deviceId, "\(tag)-d")]
        let oldest = try store.read { tx in try tx.fetchAll(DeviceItemRecord.self, where: filter) }
        #expect(oldest.map(\.name) == ["n1", "n2", "n3", "n4"])
        #expect(oldest[1].value == [9])
        let newest = try store.read { tx in try tx.fetchAll(DeviceItemRecord.self, where: filter, newestFirst: true, limit: 2) }
        #expect(newest.map(\.name) == ["n4", "n3"])
    }

    @Test(arguments: StoreUnderTest.allCases) func filtersCountAndDelete(_ kind: StoreUnderTest) throws {
        let store = try kind.open(StoreUnderTest.place())
        try store.write { tx in
            for n in 1...5 {
                try tx.save(RateEventRecord(id: "\(tag)-r\(n)", scope: "s", subject: "\(tag)-x", at: Int64(n * 10)))
            }
            try tx.save(item(1, device: "d", local: true))
            try tx.save(item(2, device: "d", local: false))
        }
        let subject = StoreFilter.equals(RateEventRecord.Columns.subject, "\(tag)-x")
        let counts = try store.read { tx in
            [
                try tx.count(RateEventRecord.self, where: [subject]),
                try tx.count(RateEventRecord.self, where: [subject, StoreFilter(RateEventRecord.Columns.at, .less, .int(30))]),
                try tx.count(RateEventRecord.self, where: [subject, StoreFilter(RateEventRecord.Columns.at, .lessOrEqual, .int(30))]),
                try tx.count(RateEventRecord.self, where: [subject, StoreFilter(RateEventRecord.Columns.at, .greaterOrEqual, .int(40))]),
                try tx.count(RateEventRecord.self, where: [subject, StoreFilter(RateEventRecord.Columns.at, .notEqual, .int(40))]),
            ]
        }
        #expect(counts == [5, 2, 3, 2, 4])
        let at = RateEventRecord.Columns.at
        let minima = try store.read { tx in
            [
                try tx.minimum(RateEventRecord.self, at, where: [subject]),
                try tx.minimum(RateEventRecord.self, at, where: [subject, StoreFilter(at, .greaterOrEqual, .int(25))]),
                try tx.minimum(RateEventRecord.self, at, where: [subject, StoreFilter(at, .greaterOrEqual, .int(51))]),
            ]
        }
        #expect(minima == [10, 30, nil], "the smallest value of the matching rows; none matching is nil")
        let user = StoreFilter.equals(AccountRecoveryRecord.Columns.id, "\(tag)-u")
        try store.write { tx in try tx.save(AccountRecoveryRecord(id: "\(tag)-u", state: .gracePeriod, reason: 0, startTime: 5, endTime: nil)) }
        #expect(try store.read { tx in try tx.minimum(AccountRecoveryRecord.self, AccountRecoveryRecord.Columns.endTime, where: [user]) } == nil)
        let device = StoreFilter.equals(DeviceItemRecord.Columns.deviceId, "\(tag)-d")
        let remote = try store.read { tx in
            try tx.fetchAll(DeviceItemRecord.self, where: [device, .equals(DeviceItemRecord.Columns.thisDeviceOnly, false)])
        }
        #expect(remote.map(\.name) == ["n2"])
        try store.write { tx in try tx.save(item(3, device: "d", value: [9, 0, 9])) }
        let byBytes = try store.read { tx in
            try tx.fetchAll(DeviceItemRecord.self, where: [device, .equals(DeviceItemRecord.Columns.value, [9, 0, 9])])
        }
        #expect(byBytes.map(\.name) == ["n3"], "a filter on a byte column compares the bytes")
        try store.write { tx in
            try tx.delete(RateEventRecord.self, id: "\(tag)-r1")
            try tx.deleteAll(RateEventRecord.self, where: [subject, StoreFilter(RateEventRecord.Columns.at, .greaterOrEqual, .int(40))])
        }
        #expect(try store.read { tx in try tx.count(RateEventRecord.self, where: [subject]) } == 2)
    }

    /// `startsWith` is the text's beginning, in every collation, and no pattern (`%` and `_` are themselves), read or stated.
    @Test(arguments: StoreUnderTest.allCases) func aPrefixFilterMatchesTheTextsThatBeginWithIt(_ kind: StoreUnderTest) throws {
        let store = try kind.open(StoreUnderTest.place())
        let written = ["\(tag)/a%", "\(tag)/a_b", "\(tag)/ab", "x\(tag)/a", "\(tag)0a", "\(tag)/", "\(tag)/A"]
        try store.write { tx in
            for (n, scope) in written.enumerated() { try tx.save(RateEventRecord(id: "\(tag)-p\(n)", scope: scope, subject: "s", at: 1)) }
        }
        func scopes(startingWith prefix: String) throws -> [String] {
            let query = StoreQuery<RateEventRecord>(where: [StoreFilter(RateEventRecord.Columns.scope, .startsWith, .text(prefix))])
            return try store.read { tx in
                tx.willRead([.rows(query)])
                return try tx.fetchAll(query).map(\.scope)
            }
        }
        #expect(try scopes(startingWith: "\(tag)/a") == ["\(tag)/a%", "\(tag)/a_b", "\(tag)/ab"])
        #expect(try scopes(startingWith: "\(tag)/a%") == ["\(tag)/a%"])
        #expect(try scopes(startingWith: "\(tag)/a_") == ["\(tag)/a_b"])
        #expect(try scopes(startingWith: "\(tag)/").count == 5)
    }

    @Test(arguments: StoreUnderTest.allCases) func aThrowingBodyWritesNothing(_ kind: StoreUnderTest) throws {
        struct Refused: Error {}
        let store = try kind.open(StoreUnderTest.place())
        #expect(throws: Refused.self) {
            try store.write { tx in
                try tx.save(item(1, device: "d"))
                throw Refused()
            }
        }
        #expect(try store.read { tx in try tx.fetch(DeviceItemRecord.self, id: "\(tag)-item-1") } == nil)
    }

    /// Reads stated with `willRead` (sent together on PostgreSQL) answer what the reads would:
    /// rows by id, a query, a row found through another's column (the holder, its column or the
    /// row missing), and after the transaction's own writes, whether stated before or after them.
    @Test(arguments: StoreUnderTest.allCases) func statedReadsAnswerAsTheReadsWould(_ kind: StoreUnderTest) throws {
        let store = try kind.open(StoreUnderTest.place())
        try store.write { tx in
            try tx.save(DeviceRecord(id: "\(tag)-d", biometry: .faceId, iCloudKeychain: true, name: nil, biometricOutcome: .match, createdAt: 1))
            try tx.save(item(1, device: "d"))
            try tx.save(item(2, device: "d"))
            try tx.save(item(3, device: "gone"))
        }
        let query = StoreQuery<DeviceItemRecord>(where: [.equals(DeviceItemRecord.Columns.deviceId, "\(tag)-d")], newestFirst: true, limit: 1)
        func device(of holder: String) -> StoreRead {
            .row(DeviceRecord.self, id: .column(DeviceItemRecord.Columns.deviceId, of: DeviceItemRecord.self, .value("\(tag)-\(holder)")))
        }
        let answers = try store.write { tx -> [String] in
            tx.willRead([
                .row(DeviceItemRecord.self, id: "\(tag)-item-1"), .rows(query), device(of: "item-1"), device(of: "item-3"),
                device(of: "none"), .row(DeviceItemRecord.self, id: "\(tag)-item-9"),
            ])
            var answers = [
                try tx.fetch(DeviceItemRecord.self, id: "\(tag)-item-1")?.name ?? "-",
                try tx.fetchAll(query).map(\.name).joined(),
                try tx.fetch(DeviceRecord.self, id: "\(tag)-d")?.biometry.rawValue ?? "-",
                try tx.fetch(DeviceRecord.self, id: "\(tag)-gone")?.biometry.rawValue ?? "-",
                try tx.fetch(DeviceItemRecord.self, id: "\(tag)-item-9")?.name ?? "-",
            ]
            // Written after the answers came back: the same reads now see the writes.
            try tx.save(item(1, device: "d", value: [7]))
            try tx.save(item(4, device: "d"))
            answers.append("\(try tx.fetch(DeviceItemRecord.self, id: "\(tag)-item-1")?.value ?? [])")
            answers.append(try tx.fetchAll(query).map(\.name).joined())
            // Stated before a write and made after it: the write is seen.
            tx.willRead([.rows(query)])
            try tx.delete(DeviceItemRecord.self, id: "\(tag)-item-4")
            answers.append(try tx.fetchAll(query).map(\.name).joined())
            // Stated and never made: nothing changes.
            tx.willRead([.row(DeviceRecord.self, id: "\(tag)-d")])
            return answers
        }
        #expect(answers == ["n1", "n2", "faceId", "-", "-", "[7]", "n4", "n2"])
        #expect(try store.read { tx in try tx.fetch(DeviceItemRecord.self, id: "\(tag)-item-1")?.value } == [7])
    }

    /// Reads by keys (an id a byte column spells, the ids a filter finds, either of two, a query
    /// for each id) answer what the reads by the ids found would, the ids found missing included,
    /// and a write to another table changes none of it.
    @Test(arguments: StoreUnderTest.allCases) func readsByKeysAnswerAsTheReadsByTheirIds(_ kind: StoreUnderTest) throws {
        let store = try kind.open(StoreUnderTest.place())
        try store.write { tx in
            try tx.save(DeviceRecord(id: "\(tag)-d", biometry: .touchId, iCloudKeychain: true, name: nil, biometricOutcome: .match, createdAt: 1))
            try tx.save(item(1, device: "d", value: Array("\(tag)-d".utf8)))
            try tx.save(item(2, device: "d", value: Array("\(tag)-gone".utf8)))
            try tx.save(item(3, device: "e", value: [0xC3, 0x28]))
        }
        let keychain = KeyedQuery<DeviceItemRecord>(DeviceItemRecord.Columns.deviceId, newestFirst: true)
        let holders = StoreKey.ids(of: DeviceItemRecord.self, where: [.equals(DeviceItemRecord.Columns.thisDeviceOnly, true)])
        let named = StoreKey.text(ofBytes: DeviceItemRecord.Columns.value, of: DeviceItemRecord.self, holders)
        let answers = try store.write { tx -> [String] in
            tx.willRead([
                .row(DeviceRecord.self, id: .either(named, .value("\(tag)-x"))),
                .rows(keychain, .column(DeviceItemRecord.Columns.deviceId, of: DeviceItemRecord.self, .value("\(tag)-item-3"))),
                .rows(keychain, .either(.value("\(tag)-d"), .value("\(tag)-nobody"))),
                .row(DeviceItemRecord.self, id: .ids(of: keychain, .value("\(tag)-d"))),
            ])
            try tx.save(DeviceBackupRecord(id: "\(tag)-b", deviceId: "\(tag)-d", kind: "iCloud", createdAt: 2))
            return [
                try tx.fetch(DeviceRecord.self, id: "\(tag)-d")?.biometry.rawValue ?? "-",
                try tx.fetch(DeviceRecord.self, id: "\(tag)-gone")?.biometry.rawValue ?? "-",
                try tx.fetch(DeviceRecord.self, id: "\(tag)-x")?.biometry.rawValue ?? "-", try tx.fetchAll(keychain, "\(tag)-e").map(\.name).joined(),
                try tx.fetchAll(keychain, "\(tag)-d").map(\.name).joined(), try tx.fetchAll(keychain, "\(tag)-nobody").map(\.name).joined(),
                try tx.fetch(DeviceItemRecord.self, id: "\(tag)-item-2")?.name ?? "-",
            ]
        }
        #expect(answers == ["touchId", "-", "-", "n3", "n2n1", "", "n2"])
    }

    /// `noneMatch` answers what a read would (PostgreSQL may check it with COMMIT, running the body
    /// again when a row is there); rows the body writes after the call do not count.
    @Test(arguments: StoreUnderTest.allCases) func noneMatchAnswersAsAReadWould(_ kind: StoreUnderTest) throws {
        let store = try kind.open(StoreUnderTest.place())
        try store.write { tx in try tx.save(item(1, device: "d")) }
        func rows(of device: String) -> StoreQuery<DeviceItemRecord> {
            StoreQuery(where: [.equals(DeviceItemRecord.Columns.deviceId, "\(tag)-\(device)")], limit: 1)
        }
        let answers = try store.write { tx in
            let answers = [try tx.noneMatch(rows(of: "d")), try tx.noneMatch(rows(of: "e"))]
            try tx.save(item(2, device: "e"))
            return answers
        }
        #expect(answers == [false, true])
        #expect(try store.read { tx in try tx.fetch(DeviceItemRecord.self, id: "\(tag)-item-2") } != nil)
    }

    /// A row read and then removed by the transaction itself (`delete`, `deleteAll`) is written
    /// again by `save` (PostgreSQL saves a row it has read with an UPDATE: not one that is gone).
    @Test(arguments: StoreUnderTest.allCases) func aRowTheTransactionRemovedIsSavedAgain(_ kind: StoreUnderTest) throws {
        let store = try kind.open(StoreUnderTest.place())
        let id = "\(tag)-item-1"
        try store.write { tx in try tx.save(item(1, device: "d")) }
        try store.write { tx in
            _ = try tx.fetch(DeviceItemRecord.self, id: id)
            try tx.deleteAll(DeviceItemRecord.self, where: [.equals(DeviceItemRecord.Columns.deviceId, "\(tag)-d")])
            try tx.save(item(1, device: "d", value: [5]))
        }
        #expect(try store.read { tx in try tx.fetch(DeviceItemRecord.self, id: id)?.value } == [5])
        try store.write { tx in
            _ = try tx.fetch(DeviceItemRecord.self, id: id)
            try tx.delete(DeviceItemRecord.self, id: id)
            try tx.save(item(1, device: "d", value: [6]))
            try tx.save(item(1, device: "d", value: [7]))
        }
        #expect(try store.read { tx in try tx.fetch(DeviceItemRecord.self, id: id)?.value } == [7])
    }

    /// Four handles (four connections) add to one counter at once: no increment is lost.
    @Test(arguments: StoreUnderTest.allCases) func concurrentReadModifyWritesStayExact(_ kind: StoreUnderTest) throws {
        let place = StoreUnderTest.place()
        let stores = try (0..<4).map { _ in try kind.open(place) }
        let id = "\(tag)-counter"
        try stores[0].write { tx in try tx.save(AccountRecoveryRecord(id: id, state: .none, reason: 0, startTime: 0, endTime: nil)) }
        let perWorker = 25
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: stores.count) { worker in
            for _ in 0..<perWorker {
                do {
                    try stores[worker].write { tx in
                        guard var row = try tx.fetch(AccountRecoveryRecord.self, id: id) else { return }
                        row.startTime += 1
                        try tx.save(row)
                    }
                } catch {
                    failures.add()
                }
            }
        }
        let total = try stores[0].read { tx in try tx.fetch(AccountRecoveryRecord.self, id: id)?.startTime }
        #expect(total == Int64(stores.count * perWorker - failures.count))
        #expect(failures.count == 0)
    }
}

/// A counter shared by worker threads.
final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func add() { lock.withLock { value += 1 } }
    var count: Int { lock.withLock { value } }
}
