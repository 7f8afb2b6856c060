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

    /// - Throws: `KeyDerivationFailed` (nothing is masked then: never a key under a fixed stream).
    static func mask(_ key: [UInt8], secret: String, salt: [UInt8], rounds: Int) throws -> [UInt8] {
        apply(try stream(secret: secret, salt: salt, count: key.count, rounds: rounds), to: key)
    }

    /// - Throws: `KeyDerivationFailed`.
    static func unmask(_ masked: [UInt8], secret: String, salt: [UInt8], rounds: Int) throws -> [UInt8] {
        try mask(masked, secret: secret, salt: salt, rounds: rounds)
    }

    /// Masks or unmasks `bytes` with a stream `stream(secret:salt:count:rounds:)` gave.
    static func apply(_ stream: [UInt8], to bytes: [UInt8]) -> [UInt8] {
        zip(bytes, stream).map { $0 ^ $1 }
    }

    /// The PBKDF2-HMAC-SHA256 stream of `secret` under `salt`: the slow part of masking.
    /// - Throws: `KeyDerivationFailed` — never a fixed stream, which would store the key in clear.
    static func stream(secret: String, salt: [UInt8], count: Int, rounds: Int) throws -> [UInt8] {
        do {
            let key = try KDF.Insecure.PBKDF2.deriveKey(
                from: Array(secret.utf8), salt: salt, using: .sha256, outputByteCount: count, unsafeUncheckedRounds: rounds)
            return key.withUnsafeBytes { Array($0) }
        } catch {
            throw KeyDerivationFailed()
        }
    }
}

/// PBKDF2 failed: the call fails and nothing is masked, unmasked or signed.
public struct KeyDerivationFailed: Error, Sendable, CustomStringConvertible {
    public var description: String { "the key derivation failed" }
}

/// A signature could not be made with a valid key: the call fails.
public struct SigningFailed: Error, Sendable, CustomStringConvertible {
    public var description: String { "signing failed" }
}
