import Crypto

/// The code a phone shows for an offline approval, and the server checks.
///
///     K(role)    = HKDF-SHA256(IKM the 32-byte big-endian x-coordinate of ECDH(role's private key, serverPublicKey),
///                              salt empty, info "LATCHKEY-OTP-V1\n<role>\n<registrationId>", 32 bytes)
///     M(role)    = HMAC-SHA256(K(role), "LATCHKEY-OTP-V1\n<operationId>\n<operation hash>\n<nonce>")
///     part(role) = RFC 4226 dynamic truncation of M: offset = M[31] & 0x0F, the 4 bytes from it as a big-endian
///                  integer & 0x7FFFFFFF, mod 10^8, written as exactly 8 digits
///     code       = part(device) "-" part(pin | touchId | faceId)
///
/// Both halves compute the same part from the same shared secret: the phone from its key and the
/// server's public key, the server from its key and the phone's.
public enum OfflineCode {
    /// The part of `role` from the ECDH shared secret's x-coordinate.
    public static func part(
        sharedSecret x: [UInt8], role: KeyRole, registrationId: String, operationId: String, operationHash: String, nonce: String
    ) -> String {
        let key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: x), salt: [UInt8](), info: Array("LATCHKEY-OTP-V1\n\(role.rawValue)\n\(registrationId)".utf8),
            outputByteCount: 32)
        let mac = HMAC<SHA256>.authenticationCode(for: Array("LATCHKEY-OTP-V1\n\(operationId)\n\(operationHash)\n\(nonce)".utf8), using: key)
            .byteArray
        return truncate(mac)
    }

    /// RFC 4226's dynamic truncation of a 32-byte MAC, to 8 digits (leading zeros kept).
    public static func truncate(_ mac: [UInt8], digits: Int = 8) -> String {
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let value =
            (UInt32(mac[offset]) << 24 | UInt32(mac[offset + 1]) << 16 | UInt32(mac[offset + 2]) << 8 | UInt32(mac[offset + 3]))
            & 0x7FFF_FFFF
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let text = String(value % modulus)
        return String(repeating: "0", count: digits - text.count) + text
    }

    /// The x-coordinate of ECDH between a P-256 private scalar and a public key.
    /// - Throws: `CryptoFailure`-like `OfflineCodeError` when the key agreement fails (the call fails; nothing is derived).
    public static func sharedSecret(privateKey: [UInt8], publicKey: PublicKey) throws -> [UInt8] {
        let mine: P256.KeyAgreement.PrivateKey
        do { mine = try P256.KeyAgreement.PrivateKey(rawRepresentation: privateKey) } catch { throw OfflineCodeError() }
        return try sharedSecret(privateKey: mine, publicKey: publicKey)
    }

    /// The same from a private key already read (reading one computes its public key: a scalar multiplication).
    /// - Throws: `OfflineCodeError` when the key agreement fails.
    public static func sharedSecret(privateKey: P256.KeyAgreement.PrivateKey, publicKey: PublicKey) throws -> [UInt8] {
        do {
            let theirs = try P256.KeyAgreement.PublicKey(x963Representation: publicKey.sec1)
            return try privateKey.sharedSecretFromKeyAgreement(with: theirs).withUnsafeBytes { Array($0) }
        } catch {
            throw OfflineCodeError()
        }
    }

    /// Whether `code` is of the form 8 digits, `-`, 8 digits.
    public static func isWellFormed(_ code: String) -> Bool {
        let bytes = Array(code.utf8)
        guard bytes.count == 17, bytes[8] == UInt8(ascii: "-") else { return false }
        return bytes.enumerated().allSatisfy { index, byte in index == 8 || (byte >= 0x30 && byte <= 0x39) }
    }
}

/// A key agreement failed: the call fails and derives nothing.
public struct OfflineCodeError: Error, Sendable, CustomStringConvertible {
    public init() {}
    public var description: String { "the key agreement failed" }
}
