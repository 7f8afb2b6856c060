import Crypto

/// How the server signs with its own P-256 keys (QR payloads): injected like the clock and the random
/// source, so a seeded run can sign with RFC 6979 nonces and replay its bytes.
public protocol ECDSASigning: Sendable {
    /// ECDSA P-256 over SHA-256 of `message` with the 32-byte private scalar, as DER.
    /// - Throws: when the key is unusable or signing fails (the call fails; nothing is signed).
    func signDER(_ message: [UInt8], privateKey: [UInt8]) throws -> [UInt8]
}

/// swift-crypto's ECDSA (random nonces): what the server signs with outside seeded runs.
public struct RandomizedECDSA: ECDSASigning {
    public init() {}

    public func signDER(_ message: [UInt8], privateKey: [UInt8]) throws -> [UInt8] {
        Array(try P256.Signing.PrivateKey(rawRepresentation: privateKey).signature(for: message).derRepresentation)
    }
}
