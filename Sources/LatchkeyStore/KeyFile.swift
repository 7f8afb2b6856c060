import Foundation

/// The keyed-hash key in a file (beside a SQLite database, or `--key-file`; mode 0600), created once: the first
/// process writes it under a temporary name and links it into place; the others read it.
public enum KeyFile {
    public static let length = 32

    public static func readOrCreate(at path: String, make: () -> [UInt8]) throws -> [UInt8] {
        for _ in 0..<100 {
            if let key = read(path) { return key }
            let temporary = path + ".\(getpid()).tmp"
            let fd = open(temporary, O_CREAT | O_WRONLY | O_TRUNC, 0o600)
            guard fd >= 0 else { throw CocoaError(.fileWriteNoPermission) }
            let key = make()
            let written = key.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            fsync(fd)
            close(fd)
            defer { unlink(temporary) }
            guard written == length else { throw CocoaError(.fileWriteUnknown) }
            // link(2) fails if another process got there first; then its key is the key.
            if link(temporary, path) == 0 { return key }
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
