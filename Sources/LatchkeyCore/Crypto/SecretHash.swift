import Crypto
import LatchkeyContract

/// Plain hashes of high-entropy secrets (tokens, session ids, ceremony and activation ids); low-entropy one-time secrets
/// (activation codes, OTPs, reset codes) are hashed keyed (`Latchkey.codeHash`).
///
/// The store keeps only these. Its hex and constant-time comparison serve other targets too (the callback tunnel's token).
public enum SecretHash {
    /// SHA-256 of a high-entropy bearer secret, as lowercase hex.
    static func digest(_ secret: String, purpose: String) -> String {
        hex(SHA256.hash(data: Array((purpose + "\u{0}" + secret).utf8)).byteArray)
    }

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
    /// The keyed hash a one-time code is stored and looked up by.
    ///
    /// HMAC-SHA256 under the store's key, bound to a purpose, as lowercase hex. The key is read
    /// when the system opens, so a read stated before a transaction can name the hash too.
    func codeHash(_ code: String, purpose: String) -> String {
        SecretHash.hex(keyedMAC(Array((purpose + "\u{0}" + code).utf8)))
    }

    /// HMAC-SHA256 of `message` under the store's key.
    func keyedMAC(_ message: [UInt8]) -> [UInt8] {
        keyedHash.code(message)
    }
}
