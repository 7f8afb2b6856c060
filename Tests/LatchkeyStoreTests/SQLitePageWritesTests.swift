import Foundation
import GRDB
import Testing

@testable import LatchkeyCore
@testable import LatchkeyStore

/// The pages a write puts in the WAL: a save that changes no indexed column writes the table's page
/// alone, while one that changes an indexed column still sets the whole row and the indexes stay
/// right (`Transaction.save`); an audit row without a user or registration writes no page of that
/// index (migration v11).
@Suite struct SQLitePageWritesTests {
    private static func passkey(signCount: Int64 = 1, rpId: String = "example.com") -> PasskeyRecord {
        PasskeyRecord(
            id: "credential-1", userId: "user-1", friendlyName: "phone", createdAt: 1_000, publicKey: [1, 2, 3], algorithm: -7,
            signCount: signCount, backupEligible: false, backedUp: false, transports: "internal", aaguid: nil, lastUsedAt: nil,
            rpId: rpId, backupEligibleKnown: true)
    }

    /// The pages the one write transaction in `body` puts in the WAL (emptied first by a second
    /// connection's TRUNCATE checkpoint).
    private static func pagesWritten(_ path: String, _ store: SQLiteStore, _ body: (StoreTransaction) throws -> Void) throws -> Int {
        let other = try DatabaseQueue(path: path)
        try other.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        let wal = path + "-wal"
        #expect(try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int == 0)
        try store.write(body)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int)
        return (size - 32) / (4_096 + 24)  // the WAL header, then a 24-byte header a frame
    }

    private static func open() throws -> (String, SQLiteStore) {
        let path = StoreUnderTest.place() + "/store.sqlite"
        return (path, try SQLiteStore.file(at: path))
    }

    @Test func aSignInsCounterWritesThePasskeyPageAlone() throws {
        let (path, store) = try Self.open()
        try store.write { try $0.save(Self.passkey()) }
        // Before: the table's page and both index pages (userId; userId, rpId) at every sign-in.
        #expect(try Self.pagesWritten(path, store) { try $0.save(Self.passkey(signCount: 2)) } == 1)
        #expect(try store.read { try $0.fetch(PasskeyRecord.self, id: "credential-1") }?.signCount == 2)
        #expect(try store.integrityCheck() == "ok")
    }

    @Test func aChangedIndexedColumnStillSetsTheWholeRow() throws {
        let (_, store) = try Self.open()
        try store.write { try $0.save(Self.passkey()) }
        try store.write { try $0.save(Self.passkey(signCount: 5, rpId: "login.example.com")) }
        let saved = try #require(try store.read { try $0.fetch(PasskeyRecord.self, id: "credential-1") })
        #expect(saved.rpId == "login.example.com" && saved.signCount == 5)
        let byIndex = try store.read { tx in
            try tx.fetchAll(PasskeyRecord.self, where: [StoreFilter(PasskeyRecord.Columns.rpId, .equal, .text("login.example.com"))])
        }
        #expect(byIndex.map(\.id) == ["credential-1"])
        let byOldValue = try store.read { tx in
            try tx.fetchAll(PasskeyRecord.self, where: [StoreFilter(PasskeyRecord.Columns.rpId, .equal, .text("example.com"))])
        }
        #expect(byOldValue.isEmpty)
        #expect(try store.integrityCheck() == "ok")
    }

    @Test func anAuditRowWithoutARegistrationWritesNoPageOfItsIndex() throws {
        let (path, store) = try Self.open()
        func event(_ id: String, registrationId: String?) -> AuditRecord {
            AuditRecord(
                id: id, at: 1_000, type: "passkeyLogin", userId: "user-1", registrationId: registrationId, deviceId: nil, detail: nil,
                activationName: nil, installationId: nil, operationId: nil, dataMismatch: nil)
        }
        try store.write { try $0.save(event("evt-0", registrationId: "reg-1")) }
        // The table, its id's index and the user's index; before v11 the registration's index too.
        #expect(try Self.pagesWritten(path, store) { try $0.save(event("evt-1", registrationId: nil)) } == 3)
        #expect(try Self.pagesWritten(path, store) { try $0.save(event("evt-2", registrationId: "reg-1")) } == 4)
        let byRegistration = try store.read { tx in
            try tx.fetchAll(AuditRecord.self, where: [StoreFilter(AuditRecord.Columns.registrationId, .equal, .text("reg-1"))])
        }
        #expect(byRegistration.map(\.id) == ["evt-0", "evt-2"])
        let plan = try DatabaseQueue(path: path).read { db in
            try Row.fetchAll(
                db, sql: "EXPLAIN QUERY PLAN SELECT id FROM audit_event WHERE registrationId = ? ORDER BY rowid DESC", arguments: ["reg-1"]
            )
            .compactMap { $0["detail"] as String? }
        }
        #expect(plan.contains { $0.contains("USING INDEX audit_event_registration") }, "\(plan)")
        #expect(try store.integrityCheck() == "ok")
    }

    @Test func aNewRowIsInsertedWithEveryColumn() throws {
        let (_, store) = try Self.open()
        try store.write { try $0.save(Self.passkey(signCount: 9)) }
        let saved = try #require(try store.read { try $0.fetch(PasskeyRecord.self, id: "credential-1") })
        #expect(saved.signCount == 9 && saved.userId == "user-1" && saved.rpId == "example.com" && saved.publicKey == [1, 2, 3])
    }
}
