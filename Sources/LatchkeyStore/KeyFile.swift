import Foundation

/// The keyed-hash key in a file (beside a SQLite database, or `--key-file`; mode 0600), created once.
///
/// The first process writes it under a temporary name and links it into place; the others read it. A key for a store that may
/// refuse it is first proposed beside that place (`readOrPropose`) and put there once the store accepts it.
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
        /// A key, but not the one a store accepted (`keep`).
        case anotherKey

        public var description: String { problem ?? "a key of \(KeyFile.length) bytes" }

        /// Why this is no key, for a message (never the bytes); nil for a key.
        public var problem: String? {
            switch self {
            case .key: return nil
            case .missing: return "is missing"
            case .wrongLength(let count): return "holds \(count) bytes, not \(KeyFile.length)"
            case .unreadable(let why): return "cannot be read (\(why))"
            case .cannotBeMade(let why): return "is missing and cannot be made (\(why))"
            case .anotherKey: return "holds another key than the one the store accepted"
            }
        }
    }

    /// A key proposed for a store that has not yet accepted it, known by its pending file's device and inode.
    ///
    /// It is kept at `path` + `.pending` (`pendingSuffix`) until the store's first use accepts it (`keep` puts it at `path`) or refuses
    /// it (`drop`), so that no other process takes it for the deployment's meanwhile.
    public struct Pending: Sendable {
        let path: String
        let key: [UInt8]
        let identity: FileIdentity

        var pendingPath: String { path + KeyFile.pendingSuffix }
    }

    /// What a proposed key's file is called beside the key file's path, until a store accepts the key.
    public static let pendingSuffix = ".pending"

    /// The key in the file at `path`, made with `make`'s bytes when there is no file (another process making it at the same
    /// time: its key is the key).
    /// - Throws: `KeyFileProblem` when the file holds no key, or none can be made.
    public static func readOrCreate(at path: String, make: () -> [UInt8]) throws(KeyFileProblem) -> [UInt8] {
        for _ in 0..<100 {
            switch contents(path) {
            case .key(let key): return key
            case .missing: break
            case let other: throw KeyFileProblem(path: path, contents: other)
            }
            if case .placed(let key, _) = try place(make(), at: path) { return key }
        }
        throw takenForEver(path)
    }

    /// The key in the file at `path`; when there is none, the key proposed beside it (`Pending`: one another process proposed and
    /// no store has accepted yet, or else one made now with `make`'s bytes).
    ///
    /// A key made for a store that already holds content may be refused by it (`--key-file` on PostgreSQL): it is not put where
    /// another process starting meanwhile would take it for the deployment's key, nor left there should this process die first.
    /// - Throws: `KeyFileProblem` when a file holds no key, or none can be made.
    public static func readOrPropose(at path: String, make: () -> [UInt8]) throws(KeyFileProblem) -> (key: [UInt8], pending: Pending?) {
        let pendingPath = path + pendingSuffix
        for _ in 0..<100 {
            switch contents(path) {
            case .key(let key):
                // A proposal left by a process that died between keeping it and removing it: a second copy of this key, which would
                // come back were the key file removed.
                if case (.key(key), let identity?) = inspect(pendingPath, followingLinks: false) { _ = removeIfStill(pendingPath, identity) }
                return (key, nil)
            case .missing: break
            case let other: throw KeyFileProblem(path: path, contents: other)
            }
            switch inspect(pendingPath, followingLinks: false) {
            case (.key(let key), let identity?): return (key, Pending(path: path, key: key, identity: identity))
            case (.missing, _): break
            case (let other, _): throw KeyFileProblem(path: pendingPath, contents: other)
            }
            guard case .placed(let key, let identity) = try place(make(), at: pendingPath) else { continue }
            // Another process kept its proposal between the looks above and this one: its key is the key, and this one none.
            if case .key(let kept) = contents(path) {
                _ = removeIfStill(pendingPath, identity)
                return (kept, nil)
            }
            return (key, Pending(path: path, key: key, identity: identity))
        }
        throw takenForEver(pendingPath)
    }

    /// Puts a key a store accepted at its path (written anew from the key, whatever its pending file holds by now), and removes the
    /// pending file if it is still the one proposed.
    /// - Throws: `KeyFileProblem` when the path holds another key (put there meanwhile), or the key cannot be put there: the
    ///   pending file is then kept.
    public static func keep(_ pending: Pending) throws(KeyFileProblem) {
        let kept: Bool
        switch try place(pending.key, at: pending.path) {
        case .placed(let key, _): kept = key == pending.key
        case .taken: kept = read(pending.path) == pending.key
        }
        guard kept else { throw KeyFileProblem(path: pending.path, contents: .anotherKey) }
        _ = drop(pending)
    }

    /// Removes a proposed key a store refused, if its pending file is still the one at its path (never a file put there since).
    /// - Returns: whether it was removed.
    public static func drop(_ pending: Pending) -> Bool {
        // Its key too: a file made after it was removed may have its inode again.
        guard KeyFile.read(pending.pendingPath) == pending.key else { return false }
        return removeIfStill(pending.pendingPath, pending.identity)
    }

    /// A file, known by its device and inode.
    struct FileIdentity: Equatable, Sendable {
        let device: UInt64
        let inode: UInt64

        init(_ status: stat) {
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
        }
    }

    private enum Placing {
        case placed([UInt8], FileIdentity)
        /// Another process put a file at the path meanwhile.
        case taken
    }

    /// Writes `key` under a temporary name and links it to `path`, which fails if a file is there: what the path holds after is
    /// read back, with its identity.
    private static func place(_ key: [UInt8], at path: String) throws(KeyFileProblem) -> Placing {
        // A name no other process uses (two containers' processes may share a pid and a volume), made new: never a file or a
        // link someone left under that name.
        let temporary = path + ".\(getpid()).\(UInt64.random(in: 0...UInt64.max)).tmp"
        let fd = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw KeyFileProblem(path: path, contents: .cannotBeMade(String(cString: strerror(errno)))) }
        let written = key.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        fsync(fd)
        var status = stat()
        let made = fstat(fd, &status) == 0 ? FileIdentity(status) : nil
        close(fd)
        guard written == length, let made else {
            unlink(temporary)
            throw KeyFileProblem(path: path, contents: .cannotBeMade("its bytes could not be written"))
        }
        // link(2) fails if another process got there first; then its key is the key.
        let linked = link(temporary, path)
        let linkError = errno
        // The temporary name goes at once: a process killed from here on leaves no second copy of the key.
        unlink(temporary)
        if linked == 0 {
            syncDirectory(of: path)
            if case (.key(let read), let identity?) = inspect(path, followingLinks: false), identity == made { return .placed(read, made) }
            return .taken
        }
        // Taken meanwhile: read what the other process linked. Anything else (no hard links here, a full disk) is said.
        guard linkError == EEXIST else { throw KeyFileProblem(path: path, contents: .cannotBeMade(String(cString: strerror(linkError)))) }
        usleep(10_000)
        return .taken
    }

    private static func takenForEver(_ path: String) -> KeyFileProblem {
        KeyFileProblem(path: path, contents: .cannotBeMade("the path stays taken by something that is no file, a dangling link perhaps"))
    }

    /// Removes the file at `path` if it is still `identity`.
    private static func removeIfStill(_ path: String, _ identity: FileIdentity) -> Bool {
        var now = stat()
        guard lstat(path, &now) == 0, FileIdentity(now) == identity else { return false }
        return unlink(path) == 0
    }

    /// Makes a name just linked in `path`'s directory survive a crash (the key's bytes were synced before).
    private static func syncDirectory(of path: String) {
        let directory = (path as NSString).deletingLastPathComponent
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    /// The key in the file at `path`, or nil (see `contents` for why not).
    public static func read(_ path: String) -> [UInt8]? {
        if case .key(let key) = contents(path) { return key }
        return nil
    }

    /// What the file at `path` holds: a key of `length` bytes, or why not.
    public static func contents(_ path: String) -> Contents {
        inspect(path).contents
    }

    /// `contents`, and the identity of the file read (nil when none was).
    ///
    /// Not `followingLinks`: a symbolic link at the path is no key (a file this process may remove is known by what is at the path).
    static func inspect(_ path: String, followingLinks: Bool = true) -> (contents: Contents, identity: FileIdentity?) {
        // Non-blocking: a FIFO at the path would hold the open (and the read) for ever.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (followingLinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { return (.missing, nil) }
            return (.unreadable(!followingLinks && errno == ELOOP ? "it is a symbolic link" : String(cString: strerror(errno))), nil)
        }
        defer { close(fd) }
        var kind = stat()
        guard fstat(fd, &kind) == 0, kind.st_mode & S_IFMT == S_IFREG else { return (.unreadable("not a regular file"), nil) }
        let identity = FileIdentity(kind)
        // One byte more than a key: a longer file is told from a key.
        var bytes = [UInt8](repeating: 0, count: length + 1)
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress.map { $0 + count }, $0.count - count) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { return (.unreadable(String(cString: strerror(errno))), identity) }
            if got == 0 { break }
            count += got
        }
        guard count == length else { return (.wrongLength(Int(kind.st_size)), identity) }
        return (.key(Array(bytes[0..<length])), identity)
    }
}

/// A key file that is not a key, nor can be made one: its path and why (never its bytes).
public struct KeyFileProblem: Error, CustomStringConvertible {
    public let path: String
    public let contents: KeyFile.Contents
    public var description: String { "the key file \(path) \(contents.problem ?? "")" }
}
