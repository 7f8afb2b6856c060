import Testing

@testable import LatchkeyCore
@testable import LatchkeyStore

/// `SQLiteStore.read` runs its own `BEGIN DEFERRED` … `COMMIT` (GRDB's read turned `PRAGMA query_only` on and off, which expired
/// every statement the connection had prepared): it sees what is committed, and a write in it is refused before SQLite.
@Suite struct SQLiteReadTransactionTests {
    private static func session(_ id: String) -> UserSessionRecord { UserSessionRecord(id: id, userId: "u", createdAt: 1, expiresAt: 2) }

    @Test func aReadSeesWhatIsCommittedAndRefusesAWrite() throws {
        let store = try SQLiteStore.inMemory()
        try store.write { try $0.save(Self.session("s1")) }
        #expect(try store.read { try $0.fetch(UserSessionRecord.self, id: "s1") }?.id == "s1")
        #expect(throws: Transaction.WriteInReadTransaction.self) {
            try store.read { tx in try tx.delete(UserSessionRecord.self, id: "s1") }
        }
        #expect(throws: Transaction.WriteInReadTransaction.self) {
            try store.read { tx in try tx.save(Self.session("s2")) }
        }
        #expect(try store.read { try $0.fetch(UserSessionRecord.self, id: "s1") } != nil, "nothing deleted")
        #expect(try store.read { try $0.fetch(UserSessionRecord.self, id: "s2") } == nil, "nothing saved")
        // The connection goes on: a write after a refused read commits.
        try store.write { tx in try tx.delete(UserSessionRecord.self, id: "s1") }
        #expect(try store.read { try $0.fetch(UserSessionRecord.self, id: "s1") } == nil)
    }
}
