import LatchkeyContract
import Synchronization

/// Passkeys' public keys in the form the verifier takes (`COSEKey`: the curve point or modulus
/// read and checked), kept by the stored bytes they were read from, so a sign-in does not read its
/// passkey's COSE key again: the CBOR decode and the point's check run once per key in a process.
///
/// A pure function of the bytes, so never stale: a changed key is other bytes. At most `capacity`
/// keys are kept (all are forgotten when it fills); a key that fails to read is not kept.
final class PasskeyKeys: Sendable {
    static let capacity = 4096
    private let keys = Mutex<[Encoded: COSEKey]>([:])

    /// The key `encoded` holds, or nil when it is not a usable COSE key.
    func key(_ encoded: [UInt8]) -> COSEKey? {
        let encoded = Encoded(bytes: encoded)
        if let known = keys.withLock({ $0[encoded] }) { return known }
        guard let key = try? COSEKey(encoded: encoded.bytes) else { return nil }
        keys.withLock { kept in
            if kept.count >= Self.capacity { kept.removeAll() }
            kept[encoded] = key
        }
        return key
    }

    /// A stored key's bytes, hashed in one pass (an array of bytes hashes its elements one by one).
    private struct Encoded: Hashable {
        let bytes: [UInt8]

        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }
}
