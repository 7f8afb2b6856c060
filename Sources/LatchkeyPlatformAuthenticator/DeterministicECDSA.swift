import Crypto
import LatchkeyContract

/// ECDSA P-256 with SHA-256 and RFC 6979 deterministic nonces, so a seeded run signs the same bytes every time: k from HMAC-DRBG (HMAC-SHA-256) over
/// the key and the message hash, r = x(kG) mod n (kG from swift-crypto, as the public key of the scalar k), s = k⁻¹(h + r·d) mod n.
///
/// The s is not normalised to the lower half (WebAuthn does not ask it).
public enum DeterministicECDSA {
    /// Signs `message` with the 32-byte private scalar `privateKey`; nil when the scalar is not
    /// in 1…n−1.
    /// - Returns: `r‖s`, 32 bytes each.
    public static func signRaw(_ message: [UInt8], privateKey: [UInt8]) -> [UInt8]? {
        guard privateKey.count == 32 else { return nil }
        let d = Scalar256(bigEndian: privateKey)
        guard !d.isZero, d < Scalar256.order else { return nil }
        let digest = SHA256.hash(data: message).byteArray
        let h = Scalar256(bigEndian: digest).reducedOnce
        var nonces = NonceGenerator(privateKey: privateKey, digest: h.bigEndianBytes)
        while true {
            let k = nonces.next()
            guard let point = try? P256.Signing.PrivateKey(rawRepresentation: k.bigEndianBytes) else { continue }
            let x = Array(point.publicKey.x963Representation.dropFirst().prefix(32))
            let r = Scalar256(bigEndian: x).reducedOnce
            guard !r.isZero else { continue }
            let s = k.inverse.times(h.plus(r.times(d)))
            guard !s.isZero else { continue }
            return r.bigEndianBytes + s.bigEndianBytes
        }
    }

    /// Signs and writes the signature as DER ECDSA-Sig-Value (as WebAuthn carries ES256).
    public static func signDER(_ message: [UInt8], privateKey: [UInt8]) -> [UInt8]? {
        guard let raw = signRaw(message, privateKey: privateKey) else { return nil }
        return der(raw: raw)
    }

    /// `r‖s` as a DER SEQUENCE of two minimal positive INTEGERs.
    public static func der(raw: [UInt8]) -> [UInt8] {
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var value = Array(bytes.drop { $0 == 0 })
            if value.isEmpty { value = [0] }
            if let first = value.first, first & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(raw.prefix(32)) + integer(raw.dropFirst(32))
        return [0x30, UInt8(body.count)] + body
    }

    /// The nonce k of RFC 6979 §3.2 for a SHA-256 digest (already reduced mod n) — exposed for the
    /// RFC's test vectors.
    static func firstNonce(privateKey: [UInt8], digest: [UInt8]) -> [UInt8] {
        var nonces = NonceGenerator(privateKey: privateKey, digest: Scalar256(bigEndian: digest).reducedOnce.bigEndianBytes)
        return nonces.next().bigEndianBytes
    }

    /// HMAC-DRBG of RFC 6979 §3.2 with qlen = hlen = 256.
    private struct NonceGenerator {
        var key: [UInt8]
        var value: [UInt8]
        var started = false

        init(privateKey: [UInt8], digest: [UInt8]) {
            key = [UInt8](repeating: 0, count: 32)
            value = [UInt8](repeating: 1, count: 32)
            key = mac(value + [0x00] + privateKey + digest)
            value = mac(value)
            key = mac(value + [0x01] + privateKey + digest)
            value = mac(value)
        }

        func mac(_ data: [UInt8]) -> [UInt8] {
            HMAC<SHA256>.authenticationCode(for: data, using: SymmetricKey(data: key)).byteArray
        }

        /// The next candidate in 1…n−1 (step h; after a refused candidate, step h.3's update).
        mutating func next() -> Scalar256 {
            while true {
                if started {
                    key = mac(value + [0x00])
                    value = mac(value)
                }
                started = true
                value = mac(value)
                let candidate = Scalar256(bigEndian: value)
                if !candidate.isZero, candidate < Scalar256.order { return candidate }
            }
        }
    }
}

/// A 256-bit unsigned integer (four 64-bit limbs, least significant first, held inline so the arithmetic allocates nothing) with the arithmetic
/// modulo P-256's group order n that ECDSA signing needs.
///
/// Operands of the modular operations are below n.
struct Scalar256: Equatable, Comparable {
    var l0: UInt64, l1: UInt64, l2: UInt64, l3: UInt64

    /// n = FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551.
    static let order = Scalar256(0xF3B9_CAC2_FC63_2551, 0xBCE6_FAAD_A717_9E84, 0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_0000_0000)
    static let zero = Scalar256(0, 0, 0, 0)

    init(_ l0: UInt64, _ l1: UInt64, _ l2: UInt64, _ l3: UInt64) {
        self.l0 = l0
        self.l1 = l1
        self.l2 = l2
        self.l3 = l3
    }

    subscript(index: Int) -> UInt64 {
        get {
            switch index {
            case 0: return l0
            case 1: return l1
            case 2: return l2
            default: return l3
            }
        }
        set {
            switch index {
            case 0: l0 = newValue
            case 1: l1 = newValue
            case 2: l2 = newValue
            default: l3 = newValue
            }
        }
    }

    /// Reads up to 32 big-endian bytes (a shorter input is a smaller number; a longer one keeps
    /// its last 32 bytes).
    init(bigEndian bytes: [UInt8]) {
        self = .zero
        for (position, byte) in bytes.suffix(32).reversed().enumerated() {
            self[position / 8] |= UInt64(byte) << UInt64(position % 8 * 8)
        }
    }

    var bigEndianBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for limb in [l3, l2, l1, l0] {
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: limb >> UInt64(shift))) }
        }
        return out
    }

    var isZero: Bool { l0 | l1 | l2 | l3 == 0 }

    static func < (lhs: Scalar256, rhs: Scalar256) -> Bool {
        if lhs.l3 != rhs.l3 { return lhs.l3 < rhs.l3 }
        if lhs.l2 != rhs.l2 { return lhs.l2 < rhs.l2 }
        if lhs.l1 != rhs.l1 { return lhs.l1 < rhs.l1 }
        return lhs.l0 < rhs.l0
    }

    /// The sum and whether it overflowed 2²⁵⁶.
    private func adding(_ other: Scalar256) -> (Scalar256, Bool) {
        limbwise(other) { $0.addingReportingOverflow($1) }
    }

    /// The difference modulo 2²⁵⁶.
    private func subtracting(_ other: Scalar256) -> Scalar256 {
        limbwise(other) { $0.subtractingReportingOverflow($1) }.0
    }

    /// `step` (an add or a subtract that reports overflow) limb by limb from the lowest, the carry
    /// (or borrow) going up; whether one came out of the top.
    private func limbwise(_ other: Scalar256, _ step: (UInt64, UInt64) -> (partialValue: UInt64, overflow: Bool)) -> (Scalar256, Bool) {
        var out = Scalar256.zero
        var carry: UInt64 = 0
        for index in 0..<4 {
            let (partial, overflow1) = step(self[index], other[index])
            let (value, overflow2) = step(partial, carry)
            out[index] = value
            carry = overflow1 || overflow2 ? 1 : 0
        }
        return (out, carry == 1)
    }

    /// This value mod n, for a value below 2²⁵⁶ < 2n.
    var reducedOnce: Scalar256 { self < Self.order ? self : subtracting(Self.order) }

    /// (self + other) mod n.
    func plus(_ other: Scalar256) -> Scalar256 {
        let (sum, overflow) = adding(other)
        return overflow || !(sum < Self.order) ? sum.subtracting(Self.order) : sum
    }

    private func bit(_ index: Int) -> Bool { self[index / 64] >> UInt64(index % 64) & 1 == 1 }

    /// (self · other) mod n: two Montgomery products (the second by R² brings the R⁻¹ back).
    func times(_ other: Scalar256) -> Scalar256 {
        montgomeryProduct(other).montgomeryProduct(Self.rSquared)
    }

    /// (self · other) mod n by doubling and adding over the bits of `other`: slow, obviously
    /// right, the reference the tests hold `times` to.
    func timesByDoubling(_ other: Scalar256) -> Scalar256 {
        var result = Scalar256.zero
        for index in stride(from: 255, through: 0, by: -1) {
            result = result.plus(result)
            if other.bit(index) { result = result.plus(self) }
        }
        return result
    }

    /// self⁻¹ mod n, by Fermat: self^(n−2), squaring and multiplying in Montgomery form.
    var inverse: Scalar256 {
        let exponent = Self.order.subtracting(Scalar256(2, 0, 0, 0))
        let base = montgomeryProduct(Self.rSquared)
        var result = Self.rModN
        for index in stride(from: 255, through: 0, by: -1) {
            result = result.montgomeryProduct(result)
            if exponent.bit(index) { result = result.montgomeryProduct(base) }
        }
        return result.montgomeryProduct(Scalar256(1, 0, 0, 0))
    }

    // MARK: Montgomery arithmetic, R = 2²⁵⁶

    /// R mod n = 2²⁵⁶ − n (n > 2²⁵⁵).
    static let rModN = Scalar256.zero.subtracting(order)
    /// R² mod n, by doubling R mod n 256 times.
    static let rSquared: Scalar256 = {
        var value = rModN
        for _ in 0..<256 { value = value.plus(value) }
        return value
    }()
    /// −n⁻¹ mod 2⁶⁴ (Newton's iteration doubles the correct low bits each step).
    static let montgomeryFactor: UInt64 = {
        var inverse: UInt64 = 1
        for _ in 0..<6 { inverse = inverse &* (2 &- order.l0 &* inverse) }
        return 0 &- inverse
    }()

    /// a·b + c + d as (high, low): never overflows 128 bits.
    private static func multiplyAdd(_ a: UInt64, _ b: UInt64, _ c: UInt64, _ d: UInt64) -> (high: UInt64, low: UInt64) {
        let (high, low) = a.multipliedFullWidth(by: b)
        let (low1, overflow1) = low.addingReportingOverflow(c)
        let (low2, overflow2) = low1.addingReportingOverflow(d)
        return (high &+ (overflow1 ? 1 : 0) &+ (overflow2 ? 1 : 0), low2)
    }

    /// self · other · R⁻¹ mod n (CIOS: coarsely integrated operand scanning), for operands below n.
    func montgomeryProduct(_ other: Scalar256) -> Scalar256 {
        var t: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
        let n = Self.order
        for i in 0..<4 {
            let b = other[i]
            var carry: UInt64
            (carry, t.0) = Self.multiplyAdd(self.l0, b, t.0, 0)
            (carry, t.1) = Self.multiplyAdd(self.l1, b, t.1, carry)
            (carry, t.2) = Self.multiplyAdd(self.l2, b, t.2, carry)
            (carry, t.3) = Self.multiplyAdd(self.l3, b, t.3, carry)
            let (sum4, overflow4) = t.4.addingReportingOverflow(carry)
            t.4 = sum4
            t.5 = overflow4 ? 1 : 0
            let m = t.0 &* Self.montgomeryFactor
            (carry, _) = Self.multiplyAdd(m, n.l0, t.0, 0)
            (carry, t.0) = Self.multiplyAdd(m, n.l1, t.1, carry)
            (carry, t.1) = Self.multiplyAdd(m, n.l2, t.2, carry)
            (carry, t.2) = Self.multiplyAdd(m, n.l3, t.3, carry)
            let (sum3, overflow3) = t.4.addingReportingOverflow(carry)
            t.3 = sum3
            t.4 = t.5 &+ (overflow3 ? 1 : 0)
        }
        let result = Scalar256(t.0, t.1, t.2, t.3)
        return t.4 != 0 || !(result < n) ? result.subtracting(n) : result
    }
}

/// The server's signer in seeded runs (`--seed`): RFC 6979, so a QR payload's signature replays byte for byte.
public struct DeterministicSigner: ECDSASigning {
    public init() {}

    public func signDER(_ message: [UInt8], privateKey: [UInt8]) throws -> [UInt8] {
        guard let der = DeterministicECDSA.signDER(message, privateKey: privateKey) else { throw DeterministicSigningFailed() }
        return der
    }
}

/// The private scalar is not in 1…n−1.
public struct DeterministicSigningFailed: Error, Sendable {}
