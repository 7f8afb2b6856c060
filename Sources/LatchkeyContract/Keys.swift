import Crypto

/// A P-256 public key as the wire carries it: the 65-byte uncompressed SEC1 point
/// (`0x04‖X‖Y`), checked to be on the curve when read.
public struct PublicKey: Sendable, Equatable, Hashable {
    /// The 65 bytes.
    public let sec1: [UInt8]

    /// Reads 65 bytes; nil for another length, a compressed point, the point at infinity, a
    /// coordinate ≥ p, or a point off the curve (swift-crypto's parser checks the last two).
    public init?(sec1 bytes: [UInt8]) {
        guard bytes.count == 65, bytes[0] == 0x04, (try? P256.Signing.PublicKey(x963Representation: bytes)) != nil else { return nil }
        sec1 = bytes
    }

    /// Reads canonical unpadded base64url of the 65 bytes.
    public init?(base64url text: String) {
        guard let bytes = Base64URL.decode(text) else { return nil }
        self.init(sec1: bytes)
    }

    public var base64url: String { Base64URL.encode(sec1) }

    /// A short, stable name for the key: unpadded base64url of the first 16 bytes of its SHA-256.
    public var keyId: String { Base64URL.encode(Array(SHA256.hash(data: sec1).prefix(16))) }

    /// Whether `signature` is this key's over `payload` (ECDSA over SHA-256). A signature whose
    /// `r` or `s` is outside 1…n−1 never verifies.
    public func verifies(_ signature: Signature, over payload: [UInt8]) -> Bool {
        guard let key = try? P256.Signing.PublicKey(x963Representation: sec1),
              let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: signature.raw) else { return false }
        return key.isValidSignature(parsed, for: payload)
    }

    public func verifies(_ signature: Signature, over payload: SignedPayload) -> Bool {
        verifies(signature, over: payload.bytes)
    }
}

/// An ECDSA P-256 signature as the wire carries it: exactly 64 bytes is raw `r‖s` (as WebCrypto
/// gives); any other length must be strict DER (a SEQUENCE of two minimal positive INTEGERs and
/// nothing after, as iOS and Android keystores give). Kept as raw `r‖s`.
public struct Signature: Sendable, Equatable {
    /// `r‖s`, 32 bytes each.
    public let raw: [UInt8]

    public init?(encoded bytes: [UInt8]) {
        if bytes.count == 64 {
            raw = bytes
            return
        }
        guard bytes.count >= 8, bytes.count <= 72, let der = DERSignature(bytes) else { return nil }
        raw = der.raw
    }

    public init?(base64url text: String) {
        guard let bytes = Base64URL.decode(text) else { return nil }
        self.init(encoded: bytes)
    }

    /// A signature made by this process (always raw).
    public init(raw bytes: [UInt8]) { raw = bytes }

    public var base64url: String { Base64URL.encode(raw) }
}

/// Strict DER of ECDSA-Sig-Value: `30 len 02 len r 02 len s`, definite short lengths, minimal
/// positive integers of at most 32 significant bytes, nothing after.
private struct DERSignature {
    let raw: [UInt8]

    init?(_ bytes: [UInt8]) {
        var index = 0
        func byte() -> UInt8? {
            guard index < bytes.count else { return nil }
            defer { index += 1 }
            return bytes[index]
        }
        func integer() -> [UInt8]? {
            guard byte() == 0x02, let length = byte(), length >= 1, length <= 33, index + Int(length) <= bytes.count else { return nil }
            let value = Array(bytes[index..<index + Int(length)])
            index += Int(length)
            // Positive and minimal: no sign bit set; a leading zero only before a byte with it set.
            guard value[0] & 0x80 == 0 else { return nil }
            if value[0] == 0, value.count > 1 {
                guard value[1] & 0x80 != 0 else { return nil }
                return Array(value.dropFirst())
            }
            guard value.count <= 32 else { return nil }
            return value
        }
        guard byte() == 0x30, let total = byte(), total < 0x80, Int(total) == bytes.count - 2,
              let r = integer(), let s = integer(), index == bytes.count else { return nil }
        raw = [UInt8](repeating: 0, count: 32 - r.count) + r + [UInt8](repeating: 0, count: 32 - s.count) + s
    }
}
