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
}

/// AES-256-GCM under HKDF-SHA256(the store's keyed-hash key, info `LATCHKEY-SEAL-V1\n<kind>`).
///
/// The row's id is the associated data: a sealed value moved to another row, or of another kind,
/// opens to nothing. Stored as nonce ‖ ciphertext ‖ tag.
enum Sealed {
    /// The key of one kind.
    static func key(_ kind: SealedKind, storeKey: [UInt8]) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: storeKey), info: Array("LATCHKEY-SEAL-V1\n\(kind.rawValue)".utf8), outputByteCount: 32)
    }

    /// Seals `plaintext` for the row `rowId`, with a nonce from `random`.
    /// - Throws: `CryptoFailure` — nothing is stored unsealed in its place.
    static func seal(_ plaintext: [UInt8], _ kind: SealedKind, rowId: String, storeKey: [UInt8], random: RandomSource) throws -> [UInt8] {
        do {
            let nonce = try AES.GCM.Nonce(data: random.bytes(12))
            let box = try AES.GCM.seal(plaintext, using: key(kind, storeKey: storeKey), nonce: nonce, authenticating: Array(rowId.utf8))
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
    static func open(_ sealed: [UInt8], _ kind: SealedKind, rowId: String, storeKey: [UInt8]) throws -> [UInt8] {
        do {
            let box = try AES.GCM.SealedBox(combined: sealed)
            return Array(try AES.GCM.open(box, using: key(kind, storeKey: storeKey), authenticating: Array(rowId.utf8)))
        } catch {
            throw CryptoFailure("AES-GCM open")
        }
    }
}

extension Latchkey {
    /// Seals a value of `kind` for the row `rowId` under the store's key.
    func seal(_ tx: StoreTransaction, _ plaintext: [UInt8], _ kind: SealedKind, rowId: String) throws -> [UInt8] {
        try Sealed.seal(plaintext, kind, rowId: rowId, storeKey: try serverKey(tx), random: keyRandom)
    }

    /// Opens a value `seal` made.
    func unseal(_ tx: StoreTransaction, _ sealed: [UInt8], _ kind: SealedKind, rowId: String) throws -> [UInt8] {
        try Sealed.open(sealed, kind, rowId: rowId, storeKey: try serverKey(tx))
    }
}
