import Crypto
import Synchronization

/// Where every random value comes from: ids, codes, tokens, keys, challenges.
///
/// Core never calls the system generator directly.
public protocol RandomSource: AnyObject, Sendable {
    /// `count` random bytes.
    func bytes(_ count: Int) -> [UInt8]
    /// Whether the values are predictable (`--seed`).
    var isSeeded: Bool { get }
    /// A second source for one purpose (the server's keys), so that drawing from it moves no value
    /// of this one: under `--seed`, a stream of its own derived from the seed and `label`.
    func derived(_ label: String) -> RandomSource
}

/// The operating system's CSPRNG.
public final class SystemRandomSource: RandomSource {
    public init() {}

    public func bytes(_ count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        // swift-crypto's generator (BoringSSL's RAND_bytes over the OS CSPRNG), one call per request.
        return SymmetricKey(size: SymmetricKeySize(bitCount: count * 8)).withUnsafeBytes { Array($0) }
    }

    public var isSeeded: Bool { false }

    public func derived(_ label: String) -> RandomSource { self }
}

/// A deterministic generator for replayable transcripts: HMAC-SHA256 in counter mode, keyed by the seed.
///
/// Cryptographically strong, but predictable to whoever knows the seed.
public final class SeededRandomSource: RandomSource {
    private let key: SymmetricKey
    private let state: Mutex<(counter: UInt64, pool: [UInt8])>

    public init(seed: UInt64) {
        var seedBytes: [UInt8] = Array("latchkey-seed-v1".utf8)
        withUnsafeBytes(of: seed.bigEndian) { seedBytes.append(contentsOf: $0) }
        key = SymmetricKey(data: SHA256.hash(data: seedBytes))
        state = Mutex((0, []))
    }

    private init(key: SymmetricKey) {
        self.key = key
        state = Mutex((0, []))
    }

    public func derived(_ label: String) -> RandomSource {
        SeededRandomSource(key: SymmetricKey(data: HMAC<SHA256>.authenticationCode(for: Array("derived\u{0}\(label)".utf8), using: key)))
    }

    public func bytes(_ count: Int) -> [UInt8] {
        state.withLock { state in
            while state.pool.count < count {
                var block: [UInt8] = []
                withUnsafeBytes(of: state.counter.bigEndian) { block.append(contentsOf: $0) }
                state.counter += 1
                state.pool.append(contentsOf: HMAC<SHA256>.authenticationCode(for: block, using: key))
            }
            let out = Array(state.pool.prefix(count))
            state.pool.removeFirst(count)
            return out
        }
    }

    public var isSeeded: Bool { true }
}

extension RandomSource {
    /// A uniform integer in `0..<upperBound` (rejection sampling, no modulo bias).
    public func uniform(_ upperBound: UInt64) -> UInt64 {
        precondition(upperBound > 0)
        let limit = UInt64.max - (UInt64.max % upperBound)
        while true {
            let value = bytes(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            if value < limit { return value % upperBound }
        }
    }

    /// A string of `count` characters drawn uniformly from `alphabet`.
    public func string(count: Int, alphabet: [Character]) -> String {
        String((0..<count).map { _ in alphabet[Int(uniform(UInt64(alphabet.count)))] })
    }

    /// `count` decimal digits.
    public func digits(_ count: Int) -> String {
        string(count: count, alphabet: Array("0123456789"))
    }

    /// An identifier: a prefix and 16 lowercase base32 characters (80 bits).
    ///
    /// For names that grant nothing (messages, events, backups); see `unguessableIdentifier`.
    public func identifier(_ prefix: String) -> String {
        prefix + "_" + string(count: 16, alphabet: Array("abcdefghijklmnopqrstuvwxyz234567"))
    }

    /// An identifier that is presented on someone's behalf (a registration): a prefix and 26
    /// lowercase base32 characters, 130 random bits.
    public func unguessableIdentifier(_ prefix: String) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)
        let source = bytes(17)
        var value: UInt32 = 0
        var bits = 0
        var out: [UInt8] = []
        for byte in source where out.count < 26 {
            value = value << 8 | UInt32(byte)
            bits += 8
            while bits >= 5, out.count < 26 {
                bits -= 5
                out.append(alphabet[Int(value >> UInt32(bits) & 31)])
            }
        }
        return prefix + "_" + String(decoding: out, as: UTF8.self)
    }

    /// A version-4 UUID (122 random bits), lower case: activation, challenge and process ids.
    public func uuid() -> String {
        var raw = bytes(16)
        raw[6] = raw[6] & 0x0F | 0x40
        raw[8] = raw[8] & 0x3F | 0x80
        let hex = raw.map { byte -> String in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
        }.joined()
        let characters = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
    }

    /// A bearer secret of `byteCount` random bytes as unpadded base64url.
    public func secret(byteCount: Int = 32) -> String {
        Base64URL.encode(bytes(byteCount))
    }
}
