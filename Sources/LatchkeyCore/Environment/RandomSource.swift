import Crypto
import Synchronization

/// Where every random value comes from: ids, codes, tokens, keys, challenges.
/// Core never calls the system generator directly.
public protocol RandomSource: AnyObject, Sendable {
    /// `count` random bytes.
    func bytes(_ count: Int) -> [UInt8]
    /// Whether the values are predictable (`--seed`).
    var isSeeded: Bool { get }
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
}

/// A deterministic generator for replayable transcripts: HMAC-SHA256 in counter mode,
/// keyed by the seed. Cryptographically strong, but predictable to whoever knows the seed.
public final class SeededRandomSource: RandomSource {
    private let key: SymmetricKey
    private let state: Mutex<(counter: UInt64, pool: [UInt8])>

    public init(seed: UInt64) {
        var seedBytes: [UInt8] = Array("latchkey-seed-v1".utf8)
        withUnsafeBytes(of: seed.bigEndian) { seedBytes.append(contentsOf: $0) }
        key = SymmetricKey(data: SHA256.hash(data: seedBytes))
        state = Mutex((0, []))
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
    public func identifier(_ prefix: String) -> String {
        prefix + "_" + string(count: 16, alphabet: Array("abcdefghijklmnopqrstuvwxyz234567"))
    }

    /// A bearer secret of `byteCount` random bytes as unpadded base64url.
    public func secret(byteCount: Int = 32) -> String {
        Base64URL.encode(bytes(byteCount))
    }
}
