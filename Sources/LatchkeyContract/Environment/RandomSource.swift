import Crypto
import Glibc
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

/// The system's CSPRNG, drawn in bulk: one read of `/dev/urandom` fills a pool of `poolSize` bytes, served
/// in order, each byte once; a request then costs no call into the kernel, or one when the pool runs
/// dry (the identifiers, codes, challenges and tokens of a request take a few hundred bytes).
///
/// Not through swift-crypto's `SymmetricKey(size:)`: it fills its bytes eight at a time from Swift's
/// `SystemRandomNumberGenerator`, one `getrandom` each, 512 system calls for a pool.
///
/// Bytes wait in the pool in process memory until served, as BoringSSL's own DRBG state does. Where
/// `/dev/urandom` cannot be read, the pool is filled from `SystemRandomNumberGenerator`, which stops
/// the process if the system has no randomness: no value stands in for it.
public final class SystemRandomSource: RandomSource {
    public static let poolSize = 4096
    /// The pool and the next byte to serve.
    private let pool = Mutex<(bytes: [UInt8], next: Int)>(([], 0))
    /// Fills a buffer with the system's random bytes.
    private let fill: @Sendable (inout [UInt8]) -> Void

    public init() { fill = Self.systemFill }

    /// A source whose pool `fill` fills (tests count the fills).
    init(fill: @escaping @Sendable (inout [UInt8]) -> Void) { self.fill = fill }

    public func bytes(_ count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        return pool.withLock { pool in
            if pool.bytes.count - pool.next < count {
                pool.bytes = [UInt8](repeating: 0, count: max(Self.poolSize, count))
                fill(&pool.bytes)
                pool.next = 0
            }
            defer { pool.next += count }
            return Array(pool.bytes[pool.next..<pool.next + count])
        }
    }

    public var isSeeded: Bool { false }

    public func derived(_ label: String) -> RandomSource { self }

    /// One read of `/dev/urandom` (the kernel's CSPRNG, as `getrandom(2)` serves it; more reads only
    /// if one comes back short); if it cannot be read, the standard library's generator.
    static func systemFill(_ bytes: inout [UInt8]) {
        let filled = bytes.withUnsafeMutableBytes { buffer -> Bool in
            let fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
            guard fd >= 0, let base = buffer.baseAddress else { return false }
            defer { close(fd) }
            var offset = 0
            while offset < buffer.count {
                let got = read(fd, base + offset, buffer.count - offset)
                if got > 0 {
                    offset += got
                } else if got < 0, errno == EINTR {
                    continue
                } else {
                    return false
                }
            }
            return true
        }
        guard !filled else { return }
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = generator.next() }
    }
}

/// A deterministic generator for replayable transcripts: HMAC-SHA256 in counter mode, keyed by the seed.
///
/// Cryptographically strong, but predictable to whoever knows the seed.
public final class SeededRandomSource: RandomSource {
    /// HMAC keyed by the seed: each block is the code of its counter.
    private let keyed: KeyedSHA256
    /// Blocks drawn and not yet served: `pool[next...]`.
    private let state: Mutex<(counter: UInt64, pool: [UInt8], next: Int)>

    public init(seed: UInt64) {
        var seedBytes: [UInt8] = Array("latchkey-seed-v1".utf8)
        withUnsafeBytes(of: seed.bigEndian) { seedBytes.append(contentsOf: $0) }
        keyed = KeyedSHA256(key: SHA256.hash(data: seedBytes).byteArray)
        state = Mutex((0, [], 0))
    }

    private init(key: [UInt8]) {
        keyed = KeyedSHA256(key: key)
        state = Mutex((0, [], 0))
    }

    /// The derived stream's key is HMAC(seed key, "derived\0" + label).
    public func derived(_ label: String) -> RandomSource {
        SeededRandomSource(key: keyed.code(Array("derived\u{0}\(label)".utf8)))
    }

    public func bytes(_ count: Int) -> [UInt8] {
        state.withLock { state in
            if state.pool.count - state.next < count {
                state.pool.removeFirst(state.next)
                state.next = 0
                while state.pool.count < count {
                    let block = withUnsafeBytes(of: state.counter.bigEndian) { keyed.code($0) }
                    state.counter += 1
                    state.pool.append(contentsOf: block)
                }
            }
            defer { state.next += count }
            return Array(state.pool[state.next..<state.next + count])
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
    ///
    /// The draws for all characters are asked in one call (8 bytes a character, more only for the
    /// rare value rejection sampling refuses): the same bytes, in the same order, as a call a character.
    public func string(count: Int, alphabet: [Character]) -> String {
        String(draw(count, from: alphabet))
    }

    /// `count` characters of an ASCII alphabet given as bytes: the same draws, and the same string, as `string(count:alphabet:)`
    /// with its characters, built as bytes instead of a character at a time.
    func asciiString(count: Int, alphabet: [UInt8]) -> String {
        String(decoding: draw(count, from: alphabet), as: UTF8.self)
    }

    /// `count` elements drawn uniformly from `alphabet`, the draws asked in one call.
    ///
    /// Inlined into its two callers: called, it cost ~2 k instructions a passkey sign-in (callgrind).
    @inline(__always)
    private func draw<Element>(_ count: Int, from alphabet: [Element]) -> [Element] {
        var draws = Draws(source: self, pending: bytes(count * 8))
        var out: [Element] = []
        out.reserveCapacity(count)
        for _ in 0..<count { out.append(alphabet[Int(draws.uniform(UInt64(alphabet.count)))]) }
        return out
    }

    /// `count` decimal digits.
    public func digits(_ count: Int) -> String {
        asciiString(count: count, alphabet: RandomAlphabet.digitBytes)
    }

    /// An identifier: a prefix and 16 lowercase base32 characters (80 bits).
    ///
    /// For names that grant nothing (messages, events, backups); see `unguessableIdentifier`.
    public func identifier(_ prefix: String) -> String {
        prefix + "_" + asciiString(count: 16, alphabet: RandomAlphabet.base32Bytes)
    }

    /// An identifier that is presented on someone's behalf (a registration): a prefix and 26
    /// lowercase base32 characters, 130 random bits.
    public func unguessableIdentifier(_ prefix: String) -> String {
        let alphabet = RandomAlphabet.base32Bytes
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
        let digits = RandomAlphabet.hex
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (index, byte) in raw.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { out.append(UInt8(ascii: "-")) }
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A bearer secret of `byteCount` random bytes as unpadded base64url.
    public func secret(byteCount: Int = 32) -> String {
        Base64URL.encode(bytes(byteCount))
    }
}

/// Draws asked for together, served 8 bytes a value; asking the source for more when they run out.
private struct Draws {
    let source: any RandomSource
    var pending: [UInt8]
    var next = 0

    /// A uniform integer in `0..<upperBound`, as `RandomSource.uniform` draws it.
    mutating func uniform(_ upperBound: UInt64) -> UInt64 {
        let limit = UInt64.max - (UInt64.max % upperBound)
        while true {
            if pending.count - next < 8 {
                pending = source.bytes(8)
                next = 0
            }
            var value: UInt64 = 0
            for byte in pending[next..<next + 8] { value = value << 8 | UInt64(byte) }
            next += 8
            if value < limit { return value % upperBound }
        }
    }
}

/// The alphabets random strings are drawn from, made once.
enum RandomAlphabet {
    static let digitBytes = Array("0123456789".utf8)
    static let base32Bytes = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)
    static let hex = Array("0123456789abcdef".utf8)
}
