import Foundation

/// The keyed-hash key in a file (beside a SQLite database, or `--key-file`; mode 0600), created once: the first
/// process writes it under a temporary name and links it into place; the others read it.
public enum KeyFile {
    public static let length = 32

    public static func readOrCreate(at path: String, make: () -> [UInt8]) throws -> [UInt8] {
        for _ in 0..<100 {
            if let key = read(path) { return key }
            // A name no other process uses (two containers' processes may share a pid and a volume), made new: never a file or a
            // link someone left under that name.
            let temporary = path + ".\(getpid()).\(UInt64.random(in: 0...UInt64.max)).tmp"
            let fd = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw CocoaError(.fileWriteNoPermission) }
            let key = make()
            let written = key.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            fsync(fd)
            close(fd)
            defer { unlink(temporary) }
            guard written == length else { throw CocoaError(.fileWriteUnknown) }
            // link(2) fails if another process got there first; then its key is the key. What is returned is what the file holds.
            if link(temporary, path) == 0, let linked = read(path) { return linked }
            usleep(10_000)
        }
        throw CocoaError(.fileReadUnknown)
    }

    /// The key in the file at `path`, or nil: no file, or not `length` bytes.
    public static func read(_ path: String) -> [UInt8]? {
        guard let data = FileManager.default.contents(atPath: path), data.count == length else { return nil }
        return Array(data)
    }
}
