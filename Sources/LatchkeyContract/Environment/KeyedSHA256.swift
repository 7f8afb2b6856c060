import Crypto

/// HMAC-SHA256 (RFC 2104) under one key, keyed once: the SHA-256 states after the key's inner and
/// outer padded blocks, copied for each message.
///
/// The same codes as swift-crypto's `HMAC<SHA256>` (tests compare them), through `SHA256`'s own
/// methods: `HMAC` is generic over its hash function and is not specialised outside swift-crypto,
/// so each code paid several thousand instructions of generic dispatch around two SHA-256
/// blocks. The seeded generator draws 6–7 codes a passkey sign-in, and the stored-code hashes
/// one each.
public struct KeyedSHA256: Sendable {
    /// SHA-256 after the key XOR ipad.
    private let inner: SHA256
    /// SHA-256 after the key XOR opad.
    private let outer: SHA256

    /// Keyed by `key`: hashed first when it is longer than a block, as HMAC does.
    public init(key: [UInt8]) {
        var block = key.count > SHA256.blockByteCount ? SHA256.hash(data: key).byteArray : key
        block.append(contentsOf: repeatElement(0, count: SHA256.blockByteCount - block.count))
        inner = Self.absorbed(block.map { $0 ^ 0x36 })
        outer = Self.absorbed(block.map { $0 ^ 0x5C })
    }

    /// The code of `message`.
    public func code(_ message: [UInt8]) -> [UInt8] {
        message.withUnsafeBytes { code($0) }
    }

    /// The code of the bytes in `message`.
    public func code(_ message: UnsafeRawBufferPointer) -> [UInt8] {
        var innerHash = inner
        innerHash.update(bufferPointer: message)
        var outerHash = outer
        innerHash.finalize().withUnsafeBytes { outerHash.update(bufferPointer: $0) }
        return outerHash.finalize().byteArray
    }

    /// A SHA-256 that has taken `bytes`.
    private static func absorbed(_ bytes: [UInt8]) -> SHA256 {
        var hash = SHA256()
        bytes.withUnsafeBytes { hash.update(bufferPointer: $0) }
        return hash
    }
}
