import Crypto
import LatchkeyContract
import _CryptoExtras

/// Passwords, stored as scrypt (memory-hard; N = 2^14, r = 8, p = 1) with a random salt.
enum PasswordHash {
    static var rounds: Int { KDFCost.factors.scryptRounds }

    /// The password's scrypt hash under `salt`.
    /// - Throws: `CryptoFailure` when scrypt fails: never a fixed value in its place (two failures
    ///   would compare equal, and any password would pass).
    static func hash(_ password: String, salt: [UInt8]) throws -> [UInt8] {
        do {
            let key = try KDF.Scrypt.deriveKey(
                from: Array(password.utf8), salt: salt, outputByteCount: 32, rounds: rounds, blockSize: 8, parallelism: 1)
            return key.withUnsafeBytes { Array($0) }
        } catch {
            throw CryptoFailure("scrypt")
        }
    }

    /// Checks a password in constant time; the cost is the same whether or not a hash exists.
    /// - Throws: `CryptoFailure` (the check grants nothing then).
    static func verify(_ password: String, salt: [UInt8]?, hash expected: [UInt8]?) throws -> Bool {
        let computed = try hash(password, salt: salt ?? Array(repeating: 0, count: 16))
        guard let expected else { return false }
        return SecretHash.constantTimeEquals(computed, expected)
    }
}

/// A cryptographic primitive failed (a KDF, a key agreement, a signature): the call fails
/// (`internalError`) and grants, derives or stores nothing (security property 9).
public struct CryptoFailure: Error, Sendable, CustomStringConvertible {
    /// Which primitive, for logs.
    public let primitive: String
    public init(_ primitive: String) { self.primitive = primitive }
    public var description: String { "\(primitive) failed" }
}
