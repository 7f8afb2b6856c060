import Crypto
import LatchkeyContract

/// The ECDH shared secrets of a registration's server key with the phone's public keys (the
/// `device` key and each factor's), kept sealed beside the server key so that checking an offline
/// code agrees no key: two agreements were most of its cost (issue 40).
///
/// Made with the first QR payload for the registration; a key the registration did not have then (a
/// factor enrolled since) is agreed at the next QR payload or check and kept from then on, and one it
/// no longer has is dropped. Derived data only: what does not open or does not parse counts as none and
/// is made again from the server key, which stays the authority. Sealed as `serverKeyAgreements` with
/// a nonce derived from the row and the value (`Sealed.sealDerivingNonce`: nothing is drawn from the
/// key stream, so a seeded run's keys stay the same), as entries of 64 bytes: SHA-256 of the server's
/// and the phone's 65-byte public keys, then the 32-byte x-coordinate of the shared point. The
/// server's key in the fingerprint ties each entry to the key it was agreed with: a server key made
/// again (a row rewritten by any path) finds none of the old entries.
struct ServerKeyAgreements: Equatable {
    struct Entry: Equatable {
        let fingerprint: [UInt8]
        let secret: [UInt8]
    }

    static let entryLength = 64
    /// More than a registration has keys: a longer value is not one this code sealed.
    static let maxEntries = 8

    private(set) var entries: [Entry] = []

    init() {}

    /// The entries of an opened value; none when it is not a whole number of entries, or too long.
    init(opened bytes: [UInt8]) {
        guard bytes.count % Self.entryLength == 0, bytes.count <= Self.maxEntries * Self.entryLength else { return }
        entries = stride(from: 0, to: bytes.count, by: Self.entryLength).map { start in
            Entry(fingerprint: Array(bytes[start..<start + 32]), secret: Array(bytes[start + 32..<start + Self.entryLength]))
        }
    }

    /// The value to seal.
    var bytes: [UInt8] { entries.flatMap { $0.fingerprint + $0.secret } }

    /// What the agreement of the server's key with a phone's key is known by.
    static func fingerprint(serverKey: [UInt8], phoneKey: [UInt8]) -> [UInt8] {
        var hash = SHA256()
        hash.update(data: serverKey)
        hash.update(data: phoneKey)
        return hash.finalize().byteArray
    }

    func secret(for fingerprint: [UInt8]) -> [UInt8]? { entries.first { $0.fingerprint == fingerprint }?.secret }

    mutating func add(_ fingerprint: [UInt8], _ secret: [UInt8]) {
        guard secret.count == 32, entries.count < Self.maxEntries else { return }
        entries.append(Entry(fingerprint: fingerprint, secret: secret))
    }
}

extension ServerSession {
    /// The shared secret of the registration's server key with each of the phone's keys; nil without a server key.
    ///
    /// The phone's keys: the `device` key and each two-factor method's (one that does not read as a
    /// P-256 point has none). Kept ones are opened, the others agreed now and kept; the row is saved
    /// only when what it keeps changes.
    /// - Throws: a store failure, `CryptoFailure` (the server key does not open, or a key agreement fails).
    func agreedSecrets(_ registration: RegistrationRecord) throws -> [KeyRole: [UInt8]]? {
        guard var record = try tx.fetch(RegistrationKeyRecord.self, id: registration.id) else { return nil }
        var kept = ServerKeyAgreements()
        if let sealed = record.sealedAgreements {
            do {
                kept = ServerKeyAgreements(opened: try core.unseal(sealed, .serverKeyAgreements, rowId: record.id))
            } catch is CryptoFailure {
                // It does not open (damaged, or sealed for another row): every agreement is made again below.
            }
        }
        var phoneKeys: [(KeyRole, [UInt8])] = [(.device, registration.possessionPublicKey)]
        for method in registration.methods where method.isTwoFactor {
            if let key = registration.publicKey(for: method) { phoneKeys.append((KeyRole(method), key)) }
        }
        var agreements = ServerKeyAgreements()
        var privateKey: P256.KeyAgreement.PrivateKey?
        var secrets: [KeyRole: [UInt8]] = [:]
        for (role, phoneKey) in phoneKeys {
            let fingerprint = ServerKeyAgreements.fingerprint(serverKey: record.publicKey, phoneKey: phoneKey)
            var secret = kept.secret(for: fingerprint)
            if secret == nil, let key = PublicKey(sec1: phoneKey) {
                let opened = try privateKey ?? openServerKey(record)
                privateKey = opened
                do { secret = try OfflineCode.sharedSecret(privateKey: opened, publicKey: key) } catch { throw CryptoFailure("ECDH") }
            }
            guard let secret else { continue }
            agreements.add(fingerprint, secret)
            secrets[role] = secret
        }
        if agreements != kept {
            record.sealedAgreements = try core.sealDerivingNonce(agreements.bytes, .serverKeyAgreements, rowId: record.id)
            try tx.save(record)
        }
        return secrets
    }

    /// The registration's server key, opened and read.
    /// - Throws: `CryptoFailure`.
    private func openServerKey(_ record: RegistrationKeyRecord) throws -> P256.KeyAgreement.PrivateKey {
        let scalar = try core.unseal(record.sealedPrivateKey, RegistrationKeyRecord.sealedKind, rowId: record.id)
        do { return try P256.KeyAgreement.PrivateKey(rawRepresentation: scalar) } catch { throw CryptoFailure("P-256 server key") }
    }
}
