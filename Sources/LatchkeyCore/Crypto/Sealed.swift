import Crypto
import LatchkeyContract

/// What the store keeps sealed: secrets the server itself holds (private keys, callback secrets),
/// so that reading the store alone signs nothing and approves nothing (security property 1).
public enum SealedKind: String, Sendable, CaseIterable {
    /// A registration's server key (offline approval's key agreement).
    case serverKey
    /// An application's operation-signing key (QR payloads).
    case operationSigningKey
    /// A callback's Standard Webhooks secret.
    case callbackSecret
    /// The ECDH shared secrets of a registration's server key with the phone's keys (`ServerKeyAgreements`).
    case serverKeyAgreements
    /// A simulated phone's keychain item that holds key material (its private keys, its masked keys, its passkeys, the change in
    /// hand), in its keychain or in a backup: the phone's half lives in the same store, and must open nothing to its reader either.
    case deviceSecret
}

/// AES-256-GCM under HKDF-SHA256(the store's keyed-hash key, info `LATCHKEY-SEAL-V1\n<kind>`).
///
/// The row's id is the associated data: a sealed value moved to another row, or of another kind,
/// opens to nothing. Stored as nonce ‖ ciphertext ‖ tag.
enum Sealed {
    /// The keys of one kind: the cipher's, and the one a derived nonce's MAC takes.
    ///
    /// Derived once per process (`Latchkey.sealKeysByKind`).
    struct Keys: Sendable {
        let cipher: SymmetricKey
        let nonce: SymmetricKey

        init(_ kind: SealedKind, storeKey: [UInt8]) {
            cipher = Sealed.key(kind, storeKey: storeKey)
            nonce = HKDF<SHA256>.deriveKey(
                inputKeyMaterial: SymmetricKey(data: storeKey), info: Array("LATCHKEY-SEAL-V1\n\(kind.rawValue)\nnonce".utf8),
                outputByteCount: 32)
        }
    }

    /// The key of one kind.
    static func key(_ kind: SealedKind, storeKey: [UInt8]) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: storeKey), info: Array("LATCHKEY-SEAL-V1\n\(kind.rawValue)".utf8), outputByteCount: 32)
    }

    /// Seals `plaintext` for the row `rowId`, with a nonce from `random`.
    /// - Throws: `CryptoFailure` — nothing is stored unsealed in its place.
    static func seal(_ plaintext: [UInt8], _ keys: Keys, rowId: String, random: RandomSource) throws -> [UInt8] {
        try seal(plaintext, keys.cipher, rowId: rowId, nonce: random.bytes(12))
    }

    /// Seals `plaintext` for the row `rowId` with a nonce that is a MAC of the row and the plaintext.
    ///
    /// The MAC's key is one of its own (HKDF info `LATCHKEY-SEAL-V1\n<kind>\nnonce`), as SIV modes
    /// make their nonces. For values derived from what the row already keeps, so that sealing them draws nothing from the
    /// key stream (a seeded run's keys stay the same); the same value sealed twice seals the same, and
    /// two values share a nonce only if a MAC collides. Opened by `open`.
    /// - Throws: `CryptoFailure` — nothing is stored unsealed in its place.
    static func sealDerivingNonce(_ plaintext: [UInt8], _ keys: Keys, rowId: String) throws -> [UInt8] {
        var authenticated = HMAC<SHA256>(key: keys.nonce)
        authenticated.update(data: Array(rowId.utf8) + [0])
        authenticated.update(data: plaintext)
        return try seal(plaintext, keys.cipher, rowId: rowId, nonce: Array(authenticated.finalize().byteArray.prefix(12)))
    }

    private static func seal(_ plaintext: [UInt8], _ cipher: SymmetricKey, rowId: String, nonce: [UInt8]) throws -> [UInt8] {
        do {
            let box = try AES.GCM.seal(plaintext, using: cipher, nonce: try AES.GCM.Nonce(data: nonce), authenticating: Array(rowId.utf8))
            guard let combined = box.combined else { throw CryptoFailure("AES-GCM") }
            return Array(combined)
        } catch let failure as CryptoFailure {
            throw failure
        } catch {
            throw CryptoFailure("AES-GCM")
        }
    }

    /// Opens what `seal` made for the row `rowId`.
    /// - Throws: `CryptoFailure` when it does not open (another key, row or kind, or damaged).
    static func open(_ sealed: [UInt8], _ keys: Keys, rowId: String) throws -> [UInt8] {
        do {
            let box = try AES.GCM.SealedBox(combined: sealed)
            return Array(try AES.GCM.open(box, using: keys.cipher, authenticating: Array(rowId.utf8)))
        } catch {
            throw CryptoFailure("AES-GCM open")
        }
    }
}

extension Latchkey {
    /// Seals a value of `kind` for the row `rowId` under the store's key.
    func seal(_ plaintext: [UInt8], _ kind: SealedKind, rowId: String) throws -> [UInt8] {
        try Sealed.seal(plaintext, sealKeys(kind), rowId: rowId, random: keyRandom)
    }

    /// The keys of `kind`, derived at start.
    func sealKeys(_ kind: SealedKind) -> Sealed.Keys { sealKeysByKind[kind] ?? Sealed.Keys(kind, storeKey: storeKey) }

    /// Seals a value derived from what the row `rowId` keeps (`Sealed.sealDerivingNonce`: nothing drawn from the key stream).
    func sealDerivingNonce(_ plaintext: [UInt8], _ kind: SealedKind, rowId: String) throws -> [UInt8] {
        try Sealed.sealDerivingNonce(plaintext, sealKeys(kind), rowId: rowId)
    }

    /// Opens a value `seal` or `sealDerivingNonce` made.
    func unseal(_ sealed: [UInt8], _ kind: SealedKind, rowId: String) throws -> [UInt8] {
        try Sealed.open(sealed, sealKeys(kind), rowId: rowId)
    }

    /// Seals a simulated phone's secret item for its row, drawing nothing from the random source (a seeded run's values stay the
    /// same).
    /// - Throws: `CryptoFailure` — nothing is stored unsealed in its place.
    public func sealDeviceSecret(_ value: [UInt8], rowId: String) throws -> [UInt8] {
        try sealDerivingNonce(value, .deviceSecret, rowId: rowId)
    }

    /// Opens what `sealDeviceSecret` made for the row; nil when it does not open (another store's key, another row, damaged, or
    /// written unsealed before the phone's secrets were sealed): the phone then holds no such item.
    public func openDeviceSecret(_ sealed: [UInt8], rowId: String) -> [UInt8]? {
        try? unseal(sealed, .deviceSecret, rowId: rowId)
    }
}
