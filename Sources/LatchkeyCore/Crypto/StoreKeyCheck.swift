import LatchkeyContract
import LatchkeyStorage

/// A store opened with another key than the one it was first used with: every code, token and session hashed under the first
/// key would look unknown, and every secret sealed under it unreadable, so the store is not used.
public struct StoreKeyMismatch: Error, CustomStringConvertible, Sendable {
    /// The key was not found in place (made just now, or proposed by a process that did not see it accepted), for a store that
    /// already holds users and nothing that proves a key.
    var madeForAStoreInUse = false
    /// Whether the key not found in place was dropped (its file removed).
    var madeKeyFileRemoved = false

    public var description: String {
        (madeForAStoreInUse
            ? "the key file was missing and a key made just now, but the store already holds users and no record of its key (a store "
                + "written before keys were recorded): give this process the deployment's key file"
            : "the store's key is not the key this store was first used with (a key file lost and made again, or another deployment's): "
                + "give every process of the deployment the same key file") + (madeKeyFileRemoved ? " (the key made is not kept)" : "")
    }
}

extension Latchkey {
    /// The text whose HMAC under the store's key the store keeps (`StoreKeyRecord`).
    static let storeKeyCheckText = "latchkey store key check v1"

    /// Records which key the store is used with on first use, and refuses another one after.
    ///
    /// A read when the check is there (every open but the first), a write only to record it. A store written before the check was
    /// kept (an upgrade) proves the key first: its sealed server keys must open under it, or the first process to open it after
    /// the upgrade, with a key file made anew, would make every other process's key the wrong one. One with no sealed key either
    /// (written before operations) is not given a key made just now, if it holds users. A key not found in place is kept only once
    /// the store accepts it, and dropped when the store refuses it (`Store.unconfirmedKey`).
    /// - Throws: `StoreKeyMismatch`, a store failure.
    func checkStoreKey() throws {
        do {
            try recordOrRequireStoreKey()
        } catch var mismatch as StoreKeyMismatch {
            mismatch.madeKeyFileRemoved = store.unconfirmedKey?.drop() ?? false
            throw mismatch
        }
        do {
            try store.unconfirmedKey?.keep()
        } catch {
            logger.error("the store accepted the key made for it, but the key file cannot be written", metadata: ["reason": "\(error)"])
        }
    }

    /// See `checkStoreKey`.
    private func recordOrRequireStoreKey() throws {
        let check = SecretHash.hex(keyedMAC(Array(Self.storeKeyCheckText.utf8)))
        let read = StoreRead.row(StoreKeyRecord.self, id: .value(StoreKeyRecord.storeId))
        // The key the store recorded must be this one.
        func requireSame(_ recorded: StoreKeyRecord) throws {
            guard SecretHash.constantTimeEquals(recorded.keyCheck, check) else { throw StoreKeyMismatch() }
        }
        let recorded = try store.read { tx in
            tx.willRead([read])
            return try tx.fetch(StoreKeyRecord.self, id: StoreKeyRecord.storeId)
        }
        if let recorded { return try requireSame(recorded) }
        // The check and one sealed key of each kind, stated at once: a PostgreSQL store sends them in one round trip.
        let sealedKeys = (StoreQuery<ApplicationKeyRecord>(where: [], limit: 1), StoreQuery<RegistrationKeyRecord>(where: [], limit: 1))
        let anyUser = StoreQuery<UserRecord>(where: [], limit: 1)
        let madeNow = store.unconfirmedKey != nil
        try store.write { tx in
            tx.willRead([read, .rows(sealedKeys.0), .rows(sealedKeys.1)] + (madeNow ? [.rows(anyUser)] : []))
            if let raced = try tx.fetch(StoreKeyRecord.self, id: StoreKeyRecord.storeId) { return try requireSame(raced) }
            guard try opens(tx, sealedKeys.0), try opens(tx, sealedKeys.1) else { throw StoreKeyMismatch() }
            // With nothing sealed to prove it on, a key made just now is not the key of a store that holds users already.
            if madeNow, try !tx.fetchAll(anyUser).isEmpty { throw StoreKeyMismatch(madeForAStoreInUse: true) }
            try tx.save(StoreKeyRecord(id: StoreKeyRecord.storeId, keyCheck: check, createdAt: clock.now))
        }
    }

    /// Whether the sealed server key `query` finds opens under this key (true when there is none: nothing to prove).
    private func opens<R: ServerKeyRecord>(_ tx: StoreTransaction, _ query: StoreQuery<R>) throws -> Bool {
        guard let record = try tx.fetchAll(query).first else { return true }
        return (try? unseal(record.sealedPrivateKey, R.sealedKind, rowId: record.id)) != nil
    }
}
