import Crypto
import LatchkeyContract

/// Hex and constant-time comparison for the store's hashes (`Latchkey.secretHash`), which serve other targets too (the callback
/// tunnel's token).
public enum SecretHash {
    public static func hex(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            for (index, byte) in bytes.enumerated() {
                out[2 * index] = hexDigit(byte >> 4)
                out[2 * index + 1] = hexDigit(byte & 15)
            }
            return bytes.count * 2
        }
    }

    /// The lowercase hex digit of a value below 16.
    private static func hexDigit(_ value: UInt8) -> UInt8 { value < 10 ? 0x30 + value : 0x57 + value }

    /// Compares two byte strings in time that depends only on their lengths.
    public static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<lhs.count { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }

    public static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        constantTimeEquals(Array(lhs.utf8), Array(rhs.utf8))
    }
}

extension Latchkey {
    /// The keyed hash a secret is stored and looked up by: a one-time code (activation code, OTP, reset code), a token, a session
    /// id, an activation or ceremony id, a recovery grant's secret (security property 1: "keyed hashes only", so the store alone
    /// confirms no secret, guessed or leaked).
    ///
    /// HMAC-SHA256 under the store's key, bound to a purpose, as lowercase hex. The key is read
    /// when the system opens, so a read stated before a transaction can name the hash too.
    func secretHash(_ secret: String, purpose: String) -> String {
        SecretHash.hex(keyedMAC(Array((purpose + "\u{0}" + secret).utf8)))
    }

    /// HMAC-SHA256 of `message` under the store's key.
    func keyedMAC(_ message: [UInt8]) -> [UInt8] {
        keyedHash.code(message)
    }
}
