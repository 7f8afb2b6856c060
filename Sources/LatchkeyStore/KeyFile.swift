import Foundation

/// The keyed-hash key in a file (beside a SQLite database, or `--key-file`; mode 0600), created once: the first
/// process writes it under a temporary name and links it into place; the others read it.
public enum KeyFile {
    public static let length = 32

    /// What a key file's path holds (its description never shows a key's bytes).
    public enum Contents: Equatable, CustomStringConvertible {
        case key([UInt8])
        /// No file (or no directory) at the path.
        case missing
        /// A file of another length: no key.
        case wrongLength(Int)
        /// A file that cannot be read: why, as the system says it (permission denied, too many open files, …).
        case unreadable(String)
        /// No file, and none can be made: why.
        case cannotBeMade(String)

        public var description: String { problem ?? "a key of \(KeyFile.length) bytes" }

        /// Why this is no key, for a message (never the bytes); nil for a key.
        public var problem: String? {
            switch self {
            case .key: return nil
            case .missing: return "is missing"
            case .wrongLength(let count): return "holds \(count) bytes, not \(KeyFile.length)"
            case .unreadable(let why): return "cannot be read (\(why))"
            case .cannotBeMade(let why): return "is missing and cannot be made (\(why))"
            }
        }
    }

    /// A key file this process made (its own link put it at `path`), known by its device and inode.
    public struct Made: Sendable {
        let path: String
        let device: UInt64
        let inode: UInt64
    }

    /// The key in the file at `path`, made with `make`'s bytes when there is no file (another process making it at the same
    /// time: its key is the key).
    /// - Throws: `KeyFileProblem` when the file holds no key, or none can be made.
    public static func readOrCreate(at path: String, make: () -> [UInt8]) throws(KeyFileProblem) -> [UInt8] {
        try readOrCreateNoting(at: path, make: make).key
    }

    /// `readOrCreate`, and the file when this call made it (nil when it found one, another process's too).
    /// - Throws: `KeyFileProblem` when the file holds no key, or none can be made.
    public static func readOrCreateNoting(at path: String, make: () -> [UInt8]) throws(KeyFileProblem) -> (key: [UInt8], made: Made?) {
        for _ in 0..<100 {
            switch contents(path) {
            case .key(let key): return (key, nil)
            case .missing: break
            case let other: throw KeyFileProblem(path: path, contents: other)
            }
            // A name no other process uses (two containers' processes may share a pid and a volume), made new: never a file or a
            // link someone left under that name.
            let temporary = path + ".\(getpid()).\(UInt64.random(in: 0...UInt64.max)).tmp"
            let fd = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw KeyFileProblem(path: path, contents: .cannotBeMade(String(cString: strerror(errno)))) }
            let key = make()
            let written = key.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            fsync(fd)
            close(fd)
            defer { unlink(temporary) }
            guard written == length else { throw KeyFileProblem(path: path, contents: .cannotBeMade("its bytes could not be written")) }
            // link(2) fails if another process got there first; then its key is the key. What is returned is what the file holds.
            let linked = link(temporary, path)
            let linkError = errno
            if linked == 0, let key = read(path) {
                var made = stat()
                guard lstat(temporary, &made) == 0 else { return (key, nil) }
                return (key, Made(path: path, device: UInt64(made.st_dev), inode: UInt64(made.st_ino)))
            }
            // Taken meanwhile: read what the other process linked. Anything else (no hard links here, a full disk) is said.
            guard linked == 0 || linkError == EEXIST else {
                throw KeyFileProblem(path: path, contents: .cannotBeMade(String(cString: strerror(linkError))))
            }
            usleep(10_000)
        }
        throw KeyFileProblem(path: path, contents: .cannotBeMade("the path stays taken by something that is no file, a dangling link perhaps"))
    }

    /// Removes a key file this process made, if it is still the one at its path (never a file someone put there since).
    /// - Returns: whether it was removed.
    public static func remove(_ made: Made) -> Bool {
        var now = stat()
        guard lstat(made.path, &now) == 0, UInt64(now.st_dev) == made.device, UInt64(now.st_ino) == made.inode else { return false }
        return unlink(made.path) == 0
    }

    /// The key in the file at `path`, or nil (see `contents` for why not).
    public static func read(_ path: String) -> [UInt8]? {
        if case .key(let key) = contents(path) { return key }
        return nil
    }

    /// What the file at `path` holds: a key of `length` bytes, or why not.
    public static func contents(_ path: String) -> Contents {
        // Non-blocking: a FIFO at the path would hold the open (and the read) for ever.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return errno == ENOENT || errno == ENOTDIR ? .missing : .unreadable(String(cString: strerror(errno))) }
        defer { close(fd) }
        var kind = stat()
        guard fstat(fd, &kind) == 0, kind.st_mode & S_IFMT == S_IFREG else { return .unreadable("not a regular file") }
        // One byte more than a key: a longer file is told from a key.
        var bytes = [UInt8](repeating: 0, count: length + 1)
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress.map { $0 + count }, $0.count - count) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { return .unreadable(String(cString: strerror(errno))) }
            if got == 0 { break }
            count += got
        }
        guard count == length else { return .wrongLength(Int(kind.st_size)) }
        return .key(Array(bytes[0..<length]))
    }
}

/// A key file that is not a key, nor can be made one: its path and why (never its bytes).
public struct KeyFileProblem: Error, CustomStringConvertible {
    public let path: String
    public let contents: KeyFile.Contents
    public var description: String { "the key file \(path) \(contents.problem ?? "")" }
}
