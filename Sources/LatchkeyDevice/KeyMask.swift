import Crypto
import LatchkeyContract
import _CryptoExtras

/// Hides a private key under a secret the user knows (PIN, recovery code): the stored bytes are the key XOR a PBKDF2-HMAC-SHA256 stream of the
/// secret.
///
/// There is no MAC, checksum or padding, so a wrong secret unmasks to a different, equally plausible
/// key — only the server's signature check tells, and counts.
enum KeyMask {
    /// PBKDF2 rounds for PINs (the contract's floor is 10 000).
    static var pinRounds: Int { KDFCost.factors.pinRounds }
    /// PBKDF2 rounds for recovery codes, which protect backed-up data.
    static var recoveryRounds: Int { KDFCost.factors.recoveryRounds }

    static func mask(_ key: [UInt8], secret: String, salt: [UInt8], rounds: Int) -> [UInt8] {
        apply(stream(secret: secret, salt: salt, count: key.count, rounds: rounds), to: key)
    }

    static func unmask(_ masked: [UInt8], secret: String, salt: [UInt8], rounds: Int) -> [UInt8] {
        mask(masked, secret: secret, salt: salt, rounds: rounds)
    }

    /// Masks or unmasks `bytes` with a stream `stream(secret:salt:count:rounds:)` gave.
    static func apply(_ stream: [UInt8], to bytes: [UInt8]) -> [UInt8] {
        zip(bytes, stream).map { $0 ^ $1 }
    }

    /// The PBKDF2-HMAC-SHA256 stream of `secret` under `salt`: the slow part of masking.
    static func stream(secret: String, salt: [UInt8], count: Int, rounds: Int) -> [UInt8] {
        guard
            let key = try? KDF.Insecure.PBKDF2.deriveKey(
                from: Array(secret.utf8), salt: salt, using: .sha256, outputByteCount: count, unsafeUncheckedRounds: rounds)
        else { return [UInt8](repeating: 0, count: count) }
        return key.withUnsafeBytes { Array($0) }
    }
}
