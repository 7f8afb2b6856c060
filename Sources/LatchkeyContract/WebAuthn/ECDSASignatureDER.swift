/// An ECDSA-Sig-Value (`SEQUENCE { r INTEGER, s INTEGER }`) in DER, read strictly into P-256's raw `r ‖ s`.
///
/// Read here rather than by swift-crypto's `ECDSASignature(derRepresentation:)`, whose general ASN.1 reader cost ~13 k
/// instructions a passkey sign-in. Only DER is taken: the sequence's length in short form and equal to what follows it, each
/// integer non-negative, minimal (no needless leading zero) and at most 32 bytes of value, nothing after the sequence. Bounded:
/// a signature longer than 72 bytes (the longest DER form of two 32-byte values) is refused before it is read.
public enum ECDSASignatureDER {
    /// The longest DER ECDSA-Sig-Value of P-256: 2 + 2 × (2 + 33) bytes.
    public static let maximumLength = 72

    /// The 64 bytes `r ‖ s` (each left-padded to 32), or nil when `der` is not a DER ECDSA-Sig-Value of 32-byte integers.
    public static func rawP256(_ der: [UInt8]) -> [UInt8]? {
        guard der.count >= 8, der.count <= maximumLength, der[0] == 0x30, Int(der[1]) == der.count - 2 else { return nil }
        var raw: [UInt8] = []
        raw.reserveCapacity(64)
        var index = 2
        for _ in 0..<2 {
            guard index + 2 < der.count, der[index] == 0x02 else { return nil }
            let length = Int(der[index + 1])
            let start = index + 2
            guard length >= 1, start + length <= der.count else { return nil }
            let first = der[start]
            // Non-negative; a leading zero only where the next byte's top bit needs it; 33 bytes only with that zero.
            guard first & 0x80 == 0 else { return nil }
            if length > 1, first == 0, der[start + 1] & 0x80 == 0 { return nil }
            let valueStart = length == 33 ? start + 1 : start
            guard length <= 32 || (length == 33 && first == 0) else { return nil }
            let valueLength = start + length - valueStart
            raw.append(contentsOf: repeatElement(0, count: 32 - valueLength))
            raw.append(contentsOf: der[valueStart..<start + length])
            index = start + length
        }
        return index == der.count ? raw : nil
    }
}
