import Crypto

/// A P-256 public key as the wire carries it: the 65-byte uncompressed SEC1 point
/// (`0x04‖X‖Y`), checked to be on the curve when read, and kept parsed for the signatures it
/// verifies (equal and hashed by its bytes).
public struct PublicKey: Sendable, Equatable, Hashable {
    /// The 65 bytes.
    public let sec1: [UInt8]
    private let parsed: P256.Signing.PublicKey

    /// Reads 65 bytes; nil for another length, a compressed point, the point at infinity, a
    /// coordinate ≥ p, or a point off the curve (swift-crypto's parser checks the last two).
    public init?(sec1 bytes: [UInt8]) {
        guard bytes.count == 65, bytes[0] == 0x04, let key = try? P256.Signing.PublicKey(x963Representation: bytes) else { return nil }
        sec1 = bytes
        parsed = key
    }

    public static func == (lhs: PublicKey, rhs: PublicKey) -> Bool { lhs.sec1 == rhs.sec1 }
    public func hash(into hasher: inout Hasher) { hasher.combine(sec1) }

    /// Reads canonical unpadded base64url of the 65 bytes.
    public init?(base64url text: String) {
        guard let bytes = Base64URL.decode(text) else { return nil }
        self.init(sec1: bytes)
    }

    public var base64url: String { Base64URL.encode(sec1) }

    /// A short, stable name for the key: unpadded base64url of the first 16 bytes of its SHA-256.
    public var keyId: String { Self.keyId(sec1: sec1) }

    /// The `keyId` of a key's 65 bytes (a key the store keeps, checked when it was registered:
    /// naming it needs no parse).
    public static func keyId(sec1 bytes: [UInt8]) -> String { Base64URL.encode(Array(SHA256.hash(data: bytes).byteArray.prefix(16))) }

    /// Whether `signature` is this key's over `payload` (ECDSA over SHA-256).
    ///
    /// A signature whose `r` or `s` is outside 1…n−1 never verifies.
    public func verifies(_ signature: Signature, over payload: [UInt8]) -> Bool {
        guard let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature.raw) else { return false }
        return parsed.isValidSignature(ecdsa, for: payload)
    }

    public func verifies(_ signature: Signature, over payload: SignedPayload) -> Bool {
        verifies(signature, over: payload.bytes)
    }
}

/// An ECDSA P-256 signature as the wire carries it: exactly 64 bytes is raw `r‖s` (as WebCrypto gives); any other length must be strict DER (a
/// SEQUENCE of two minimal positive INTEGERs and nothing after, as iOS and Android keystores give).
///
/// Kept as raw `r‖s`.
public struct Signature: Sendable, Equatable {
    /// `r‖s`, 32 bytes each.
    public let raw: [UInt8]

    public init?(encoded bytes: [UInt8]) {
        if bytes.count == 64 {
            raw = bytes
            return
        }
        guard let der = DERSignature(bytes) else { return nil }
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

/// Strict DER of ECDSA-Sig-Value: `30 len 02 len r 02 len s`, definite minimal lengths, minimal positive integers, nothing after.
///
/// An integer of more than 32 significant bytes is strict DER too, but lies outside 1…n−1: it is kept
/// as 0, which never verifies (a failed factor, not a signature that does not decode).
private struct DERSignature {
    let raw: [UInt8]

    init?(_ bytes: [UInt8]) {
        var index = 0
        func byte() -> UInt8? {
            guard index < bytes.count else { return nil }
            defer { index += 1 }
            return bytes[index]
        }
        /// A definite length in its shortest form (long form only from 128, up to two bytes).
        func length() -> Int? {
            guard let first = byte() else { return nil }
            if first < 0x80 { return Int(first) }
            let count = Int(first & 0x7F)
            guard count == 1 || count == 2 else { return nil }
            var value = 0
            for _ in 0..<count {
                guard let next = byte() else { return nil }
                value = value << 8 | Int(next)
            }
            guard value >= 0x80, count == 1 || value > 0xFF else { return nil }
            return value
        }
        /// The integer's significant bytes.
        func integer() -> ArraySlice<UInt8>? {
            guard byte() == 0x02, let length = length(), length >= 1, length <= bytes.count - index else { return nil }
            let value = bytes[index..<index + length]
            index += length
            // Positive and minimal: no sign bit set; a leading zero only before a byte with it set.
            guard let first = value.first, first & 0x80 == 0 else { return nil }
            if first == 0, value.count > 1 {
                guard value[value.startIndex + 1] & 0x80 != 0 else { return nil }
                return value.dropFirst()
            }
            return value
        }
        guard byte() == 0x30, let total = length(), total == bytes.count - index,
            let r = integer(), let s = integer(), index == bytes.count
        else { return nil }
        func scalar(_ value: ArraySlice<UInt8>) -> [UInt8] {
            value.count > 32 ? [UInt8](repeating: 0, count: 32) : [UInt8](repeating: 0, count: 32 - value.count) + value
        }
        raw = scalar(r) + scalar(s)
    }
}
