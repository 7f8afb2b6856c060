import Crypto
import LatchkeyContract

/// Keyed hashes of low-entropy one-time secrets (activation codes, OTPs, reset codes) and plain hashes of high-entropy ones (tokens, session ids).
///
/// The store keeps only these.
enum SecretHash {
    /// HMAC-SHA256 of `secret` under `key`, bound to a purpose, as lowercase hex.
    static func keyed(_ secret: String, purpose: String, key: [UInt8]) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Array((purpose + "\u{0}" + secret).utf8), using: SymmetricKey(data: key))
        return hex(mac.byteArray)
    }

    /// SHA-256 of a high-entropy bearer secret, as lowercase hex.
    static func digest(_ secret: String, purpose: String) -> String {
        hex(SHA256.hash(data: Array((purpose + "\u{0}" + secret).utf8)).byteArray)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Compares two byte strings in time that depends only on their lengths.
    static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<lhs.count { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }

    static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        constantTimeEquals(Array(lhs.utf8), Array(rhs.utf8))
    }
}

extension Latchkey {
    /// The store's keyed-hash key (kept outside the tables; see `Store.secretKey`).
    func serverKey(_ tx: StoreTransaction) throws -> [UInt8] {
        if let cached = secretKeyCache.withLock({ $0 }) { return cached }
        let key = try store.secretKey { random.bytes(32) }
        secretKeyCache.withLock { $0 = key }
        return key
    }

    /// The keyed hash a one-time code is stored and looked up by.
    func codeHash(_ tx: StoreTransaction, _ code: String, purpose: String) throws -> String {
        SecretHash.keyed(code, purpose: purpose, key: try serverKey(tx))
    }

    /// The keyed hash of a code, for a read stated before the transaction: the key is made when
    /// the system opens, so it is at hand (were it not, the stated read would find nothing and
    /// the body's own read, with the key, would ask: a statement lost, never a wrong answer).
    func codeHash(_ code: String, purpose: String) -> String {
        SecretHash.keyed(code, purpose: purpose, key: secretKeyCache.withLock { $0 } ?? [])
    }
}
