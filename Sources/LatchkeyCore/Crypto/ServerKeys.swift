import Crypto
import LatchkeyContract

/// The server's own P-256 keys, kept sealed: each application's operation-signing key (it signs QR
/// payloads; phones learn its public key at activation) and each registration's server key (offline
/// approval's key agreement; made at activation, or at the next challenge for a registration made
/// before, and kept across a recovery).
extension Latchkey {
    /// The public key of the key `id` of `R`, made and kept (sealed) when there is none yet.
    /// - Throws: a store failure, `CryptoFailure`.
    func ensureServerKey<R: ServerKeyRecord>(_ tx: StoreTransaction, _ type: R.Type, id: String) throws -> PublicKey {
        if let record = try tx.fetch(R.self, id: id), let key = PublicKey(sec1: record.publicKey) { return key }
        return try newServerKey(tx, R.self, id: id)
    }

    /// A new key `id` of `R`, kept (sealed): for a row that cannot be there yet (a registration made
    /// in this transaction), so nothing is read first.
    /// - Throws: a store failure, `CryptoFailure`.
    func newServerKey<R: ServerKeyRecord>(_ tx: StoreTransaction, _ type: R.Type, id: String) throws -> PublicKey {
        let (scalar, key) = try newP256Key()
        let publicKey = Array(key.publicKey.x963Representation)
        guard let parsed = PublicKey(sec1: publicKey) else { throw CryptoFailure("P-256 public key") }
        try tx.save(R(id: id, sealedPrivateKey: try seal(scalar, R.sealedKind, rowId: id), publicKey: publicKey, createdAt: now))
        return parsed
    }

    /// The private half of the key `id` of `R` (nil: none was made).
    /// - Throws: a store failure, `CryptoFailure` (it does not open).
    func serverPrivateKey<R: ServerKeyRecord>(_ tx: StoreTransaction, _ type: R.Type, id: String) throws -> [UInt8]? {
        guard let record = try tx.fetch(R.self, id: id) else { return nil }
        return try unseal(record.sealedPrivateKey, R.sealedKind, rowId: id)
    }

    /// The application's operation-signing key, made on first use.
    func operationSigningKey(_ tx: StoreTransaction, applicationId: String) throws -> PublicKey {
        try ensureServerKey(tx, ApplicationKeyRecord.self, id: applicationId)
    }

    /// The registration's server key, made on first use.
    func serverPublicKey(_ tx: StoreTransaction, registrationId: String) throws -> PublicKey {
        try ensureServerKey(tx, RegistrationKeyRecord.self, id: registrationId)
    }

    /// A new P-256 key from the server's key stream (a seeded run makes the same keys).
    private func newP256Key() throws -> ([UInt8], P256.Signing.PrivateKey) {
        for _ in 0..<64 {
            let candidate = keyRandom.bytes(32)
            if let key = try? P256.Signing.PrivateKey(rawRepresentation: candidate) { return (candidate, key) }
        }
        throw CryptoFailure("P-256 key generation")
    }
}
