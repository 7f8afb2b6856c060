import Foundation
import LatchkeyContract
import LatchkeyTestSupport
import Logging
import Synchronization
import Testing

@testable import LatchkeyCore
@testable import LatchkeyPostgres
@testable import LatchkeySimulator

/// At trace level the PostgreSQL store reports each transaction's cost, counted as it happened,
/// and nothing read from a row.
@Suite(.enabled(if: StoreUnderTest.postgresURI != nil, "LATCHKEY_TEST_POSTGRES is not set (make test starts a cluster and sets it)"))
struct PostgresTraceTests {
    /// A store logging at trace level into the lines returned, and a tag for this test's rows.
    private func tracedStore() throws -> (PostgresStore, CapturedLines, String) {
        let uri = try #require(StoreUnderTest.postgresURI)
        let captured = CapturedLines()
        let logger = captured.logger()
        let store = try PostgresStore(conninfo: uri, key: Array(repeating: 7, count: 32), logger: logger)
        return (store, captured, String(UUID().uuidString.prefix(8).lowercased()))
    }

    @Test func aTransactionReportsItsRoundTripsStatementsAndTimeInTheStore() throws {
        let (store, captured, tag) = try tracedStore()
        let secret = "secret-\(tag)"
        captured.lines.withLock { $0.removeAll() }
        try store.write { tx in
            // One round trip: BEGIN, the transaction id, this read; then COMMIT with the write.
            _ = try tx.fetch(DeviceItemRecord.self, id: "\(tag)-none")
            try tx.save(DeviceItemRecord(id: "\(tag)-i", deviceId: "\(tag)-d", name: secret, value: [1], thisDeviceOnly: true))
        }
        _ = try store.read { tx in try tx.fetch(DeviceItemRecord.self, id: "\(tag)-i") }
        let lines = captured.lines.withLock { $0 }
        #expect(lines.count == 2)
        let write = try #require(lines.first)
        #expect(write.message == "transaction")
        #expect(write.metadata["kind"] == "write")
        #expect(write.metadata["roundTrips"] == "2")
        #expect(write.metadata["statements"] == "5")
        #expect(write.metadata["attempts"] == "1")
        let inStore = Int(write.metadata["storeMicroseconds"] ?? "") ?? 0
        let wait = Int(write.metadata["waitMicroseconds"] ?? "") ?? 0
        #expect(inStore > 0 && wait > 0 && wait <= inStore)
        #expect(lines.last?.metadata["kind"] == "read")
        #expect(lines.last?.metadata["statements"] == "3")
        for line in lines { #expect(!line.metadata.values.contains { $0.contains(secret) }) }
    }

    /// A read stated again (by the caller, then by the operation it calls) is asked once; one
    /// already answered is not asked again; a read through another row's column likewise.
    @Test func aReadStatedAgainIsAskedOnce() throws {
        let (store, captured, tag) = try tracedStore()
        let reads: [StoreRead] = [
            .row(DeviceItemRecord.self, id: "\(tag)-a"),
            .row(ApplicationRecord.self, id: .column(RegistrationRecord.Columns.applicationId, of: RegistrationRecord.self, .value("\(tag)-r"))),
        ]
        captured.lines.withLock { $0.removeAll() }
        try store.write { tx in
            tx.willRead(reads)
            tx.willRead(reads)
            // BEGIN, the writers' lock, the two reads stated, this one.
            _ = try tx.fetch(DeviceItemRecord.self, id: "\(tag)-b")
            tx.willRead(reads)
            _ = try tx.fetch(DeviceItemRecord.self, id: "\(tag)-a")
            // This read alone, then COMMIT.
            _ = try tx.fetch(DeviceItemRecord.self, id: "\(tag)-c")
        }
        let write = try #require(captured.lines.withLock { $0.first })
        #expect(write.metadata["roundTrips"] == "3")
        #expect(write.metadata["statements"] == "7")
    }

    /// What a read through another row's column found answers the body's reads by id and by query.
    ///
    /// By id there or not, and each row a query found by its id; a write to another table, or to
    /// another row of the table, changes none of it; a row the body wrote reads back as written.
    /// All of it in one round trip, then COMMIT.
    @Test func stateReadsAnswerByIdAndByQueryUntilTheirTableIsWritten() throws {
        let (store, captured, tag) = try tracedStore()
        let keychain = KeyedQuery<DeviceItemRecord>(DeviceItemRecord.Columns.deviceId)
        try store.write { tx in
            try tx.save(DeviceRecord(id: "\(tag)-d", biometry: .faceId, iCloudKeychain: true, name: nil, biometricOutcome: .match, createdAt: 1))
            try tx.save(DeviceItemRecord(id: "\(tag)-1", deviceId: "\(tag)-d", name: "n1", value: Array("\(tag)-d".utf8), thisDeviceOnly: true))
            try tx.save(DeviceItemRecord(id: "\(tag)-2", deviceId: "\(tag)-d", name: "n2", value: [0xFF], thisDeviceOnly: true))
        }
        captured.lines.withLock { $0.removeAll() }
        let device = StoreKey.text(ofBytes: DeviceItemRecord.Columns.value, of: DeviceItemRecord.self, .value("\(tag)-1"))
        let answers = try store.write { tx -> [String] in
            tx.willRead([.row(DeviceRecord.self, id: .either(device, .value("\(tag)-none"))), .rows(keychain, device)])
            var answers = [
                try tx.fetch(DeviceRecord.self, id: "\(tag)-d")?.biometry.rawValue ?? "-",
                try tx.fetch(DeviceRecord.self, id: "\(tag)-none")?.biometry.rawValue ?? "-",
                try tx.fetchAll(keychain, "\(tag)-d").map(\.name).joined(), try tx.fetch(DeviceItemRecord.self, id: "\(tag)-2")?.name ?? "-",
            ]
            try tx.save(DeviceBackupRecord(id: "\(tag)-b", deviceId: "\(tag)-d", kind: "iCloud", createdAt: 2))
            try tx.save(DeviceItemRecord(id: "\(tag)-1", deviceId: "\(tag)-d", name: "n1", value: [7], thisDeviceOnly: false))
            answers.append(try tx.fetch(DeviceRecord.self, id: "\(tag)-d")?.biometry.rawValue ?? "-")
            answers.append(try tx.fetch(DeviceItemRecord.self, id: "\(tag)-2")?.name ?? "-")
            answers.append("\(try tx.fetch(DeviceItemRecord.self, id: "\(tag)-1")?.value ?? [])")
            try tx.delete(DeviceItemRecord.self, id: "\(tag)-2")
            answers.append(try tx.fetch(DeviceItemRecord.self, id: "\(tag)-2")?.name ?? "-")
            return answers
        }
        #expect(answers == ["faceId", "-", "n1n2", "n2", "faceId", "n2", "[7]", "-"])
        let write = try #require(captured.lines.withLock { $0.first })
        #expect(write.metadata["roundTrips"] == "2")
    }

    /// A key of the ids a query with a limit reads (`StoreKey.ids(of:)`) finds those rows only, in its
    /// order: the rows read through it are known, the others cost a round trip of their own.
    @Test func theFirstIdsOfAQueryKeepItsOrderAndLimit() throws {
        let (store, captured, tag) = try tracedStore()
        try store.write { tx in
            try tx.save(DeviceRecord(id: "\(tag)-d", biometry: .touchId, iCloudKeychain: true, name: nil, biometricOutcome: .match, createdAt: 1))
            try tx.save(DeviceRecord(id: "\(tag)-e", biometry: .faceId, iCloudKeychain: true, name: nil, biometricOutcome: .match, createdAt: 1))
            try tx.save(DeviceRecord(id: "\(tag)-f", biometry: .none, iCloudKeychain: true, name: nil, biometricOutcome: .match, createdAt: 1))
            for name in ["d", "e", "f"] {
                try tx.save(
                    DeviceItemRecord(
                        id: "\(tag)-\(name)", deviceId: "\(tag)-x", name: name, value: Array("\(tag)-\(name)".utf8), thisDeviceOnly: true))
            }
        }
        func devices(newestFirst: Bool) -> StoreKey {
            let items = StoreQuery<DeviceItemRecord>(
                where: [.equals(DeviceItemRecord.Columns.deviceId, "\(tag)-x")], newestFirst: newestFirst, limit: 1)
            return .text(ofBytes: DeviceItemRecord.Columns.value, of: DeviceItemRecord.self, .ids(of: items))
        }
        captured.lines.withLock { $0.removeAll() }
        let answers = try store.write { tx -> [String] in
            tx.willRead([.row(DeviceRecord.self, id: .either(devices(newestFirst: false), devices(newestFirst: true)))])
            // The first and the newest: one round trip; the one between: a round trip of its own.
            return try ["d", "f", "e"].map { try tx.fetch(DeviceRecord.self, id: "\(tag)-\($0)")?.biometry.rawValue ?? "-" }
        }
        #expect(answers == ["touchId", "none", "faceId"])
        let write = try #require(captured.lines.withLock { $0.first })
        #expect(write.metadata["roundTrips"] == "3")
    }

    /// A check whose answer the body needs only to be "none" costs no round trip of its own: it
    /// goes with COMMIT; when a row is there, the body runs again and asks first.
    @Test func aCheckForNoneGoesWithCommitAndFailingRunsTheBodyAgain() throws {
        let (store, captured, tag) = try tracedStore()
        let taken = StoreQuery<DeviceItemRecord>(where: [.equals(DeviceItemRecord.Columns.deviceId, "\(tag)-taken")], limit: 1)
        let free = StoreQuery<DeviceItemRecord>(where: [.equals(DeviceItemRecord.Columns.deviceId, "\(tag)-free")], limit: 1)
        try store.write { tx in try tx.save(DeviceItemRecord(id: "\(tag)-t", deviceId: "\(tag)-taken", name: "t", value: [], thisDeviceOnly: true)) }
        captured.lines.withLock { $0.removeAll() }
        let first = try store.write { tx in
            let none = try tx.noneMatch(free)
            try tx.save(DeviceItemRecord(id: "\(tag)-f", deviceId: "\(tag)-free", name: "f", value: [], thisDeviceOnly: true))
            return none
        }
        let line = try #require(captured.lines.withLock { $0.first })
        #expect(first && line.metadata["roundTrips"] == "1" && line.metadata["attempts"] == "1")
        captured.lines.withLock { $0.removeAll() }
        var seen: [Bool] = []
        try store.write { tx in seen.append(try tx.noneMatch(taken)) }
        #expect(seen == [true, false])
        let again = try #require(captured.lines.withLock { $0.first })
        #expect(again.metadata["attempts"] == "2")
    }

    /// `admin/listOperations` that expires an operation itself (before the due work has) still makes
    /// two round trips: the list is read before the expiry writes, and answered with it.
    @Test func aListThatExpiresAnOperationMakesTwoRoundTrips() throws {
        let (store, captured, tag) = try tracedStore()
        let clock = ManualClock(start: 1_767_225_600)
        let core = try Latchkey(store: store, clock: clock, random: SeededRandomSource(seed: 1))
        let userId = "u-\(tag)"
        _ = try core.createUser(NewUser(userId: userId, email: "\(tag)@example.com"))
        _ = try core.configureOperationTemplate(
            OperationTemplate(
                applicationId: ApplicationConfig.defaultApplicationId, name: "t\(tag)", title: "Pay ${amount} EUR", message: "To CZ27",
                data: "A1*A${amount}EUR", attributes: [], maxFailureCount: 5, ttlSeconds: 60, allowedMethods: OperationTemplate.defaultAllowedMethods)
        )
        let operation = try core.createOperation(NewOperation(userId: userId, template: "t\(tag)", parameters: [("amount", "1.00")]))
        try clock.advance(by: 61)
        captured.lines.withLock { $0.removeAll() }
        let listed = try core.operations(userId: userId, status: nil, limit: 10)
        #expect(listed.map(\.operationId) == [operation.operationId] && listed.map(\.status) == [.expired])
        let writes = captured.lines.withLock { $0.filter { $0.metadata["kind"] == "write" } }
        #expect(writes.count == 1 && writes.first?.metadata["roundTrips"] == "2", "\(writes.map(\.metadata))")
    }
}
