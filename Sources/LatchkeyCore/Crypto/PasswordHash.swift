import Crypto
import LatchkeyContract
import _CryptoExtras

/// Passwords, stored as scrypt (memory-hard; N = 2^14, r = 8, p = 1) with a random salt.
enum PasswordHash {
    static var rounds: Int { KDFCost.factors.scryptRounds }

    static func hash(_ password: String, salt: [UInt8]) -> [UInt8] {
        guard
            let key = try? KDF.Scrypt.deriveKey(
                from: Array(password.utf8), salt: salt, outputByteCount: 32,
                rounds: rounds, blockSize: 8, parallelism: 1)
        else { return [UInt8](repeating: 0, count: 32) }
        return key.withUnsafeBytes { Array($0) }
    }

    /// Checks a password in constant time; the cost is the same whether or not a hash exists.
    static func verify(_ password: String, salt: [UInt8]?, hash expected: [UInt8]?) -> Bool {
        let computed = hash(password, salt: salt ?? Array(repeating: 0, count: 16))
        guard let expected else { return false }
        return SecretHash.constantTimeEquals(computed, expected)
    }
}
