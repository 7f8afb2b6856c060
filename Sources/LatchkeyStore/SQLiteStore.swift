import Foundation
import GRDB
import LatchkeyStorage
import Synchronization

/// The SQLite store (WAL for files), through GRDB.
///
/// Writes take the write lock up front (`BEGIN IMMEDIATE`), so read-then-write counters stay correct
/// across processes.
public final class SQLiteStore: Store, @unchecked Sendable {
    private let queue: DatabaseQueue
    public let kind: StoreKind
    /// Where the keyed-hash key lives (nil: in memory only).
    private let keyPath: String?
    private let memoryKey = Mutex<[UInt8]?>(nil)
    /// Statements of the queue's one connection (used inside the queue only).
    private let statements = StatementCache()

    /// Why the file at `path` can never be a SQLite store (a directory, another kind of file, a damaged one, one whose key file is
    /// gone), or nil: it is one, is empty, or does not exist yet.
    ///
    /// Retrying cannot help such a file, so the process refuses it at start instead of answering storeUnavailable. A store is
    /// never written before its key file exists (`file(at:)`), so a store with content and no key file lost it: a new key would
    /// leave every code, token and sealed secret in it unreadable, and registrations would look removed.
    public static func unusableFile(at path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        if status.st_mode & S_IFMT == S_IFDIR { return "is a directory, not a SQLite database file" }
        guard status.st_size > 0 else { return nil }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "cannot be read (\(String(cString: strerror(errno))))" }
        defer { close(fd) }
        var header = [UInt8](repeating: 0, count: 16)
        let count = header.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, 16) }
        let magic = Array("SQLite format 3".utf8) + [0]
        guard count == 16, header == magic else { return "is not a SQLite database (the file does not start with the SQLite header)" }
        if let damage = damage(at: path) { return damage }
        return missingKey(of: path)
    }

    /// Why a store with content cannot be opened for want of its key, or nil: its key file holds a key.
    static func missingKey(of path: String) -> String? {
        switch KeyFile.contents(keyPath(of: path)) {
        case .key:
            return nil
        case .unreadable(let why):
            // The file is there: the store is fine, and nothing is to be removed.
            return "cannot be opened: its key file \(keyPath(of: path)) cannot be read (\(why)). Let this process read it"
        case let other:
            return "has content but its key file \(keyPath(of: path)) \(other.problem ?? ""): the codes, tokens and sealed secrets in "
                + "it cannot be read without that key. Put the key file back (mode 0600), or remove the store to start a new one"
        }
    }

    /// Whether a file exists at `path` and is not empty (a store some process has written).
    private static func hasContent(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_size > 0
    }

    /// Where the key of the store at `path` lives.
    static func keyPath(of path: String) -> String { path + ".key" }

    /// What SQLite says of a file with the right header that it cannot read as a database (its first page), or nil: it can, or the
    /// read failed for a passing reason (another process's lock, a WAL index it may not make), which the first call meets again.
    private static func damage(at path: String) -> String? {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(1)
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            _ = try queue.read { try Int.fetchOne($0, sql: "PRAGMA schema_version") }
            try queue.close()
            return nil
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB || error.resultCode == .SQLITE_CORRUPT {
            return "is damaged: SQLite cannot read it as a database (\(error.resultCode))"
        } catch {
            return nil
        }
    }

    /// Opens (and migrates) a file store, creating it with mode 0600 — and, for a new store, its key file beside it, with
    /// `makeKey`'s bytes.
    /// - Throws: `StoreDamaged` (a store with content whose key file is gone), what SQLite throws.
    public static func file(at path: String, makeKey: () -> [UInt8] = systemKey) throws -> SQLiteStore {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        }
        // The key first: a store never has content without its key file. One with content whose key is gone is refused here too
        // (the process checked at start; the file may have gone since), never given a new key.
        if hasContent(path) {
            if let missing = missingKey(of: path) { throw StoreDamaged(description: "the store file \(path) \(missing)") }
        } else {
            _ = try KeyFile.readOrCreate(at: keyPath(of: path), make: makeKey)
        }
        if !FileManager.default.fileExists(atPath: path) {
            let fd = open(path, O_CREAT | O_WRONLY, 0o600)
            if fd >= 0 { close(fd) }
        }
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.busyMode = .timeout(10)
        configuration.label = "latchkey"
        // WAL with synchronous=NORMAL: a commit survives a killed process (the OS has it) and
        // the file stays consistent on power loss; only the last commits could roll back then.
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        // Processes opening a new file together race to switch it to WAL and to create the
        // schema; the loser of either race retries and then finds the work done.
        var attempt = 0
        while true {
            do {
                let queue = try DatabaseQueue(path: path, configuration: configuration)
                try queue.read(Migrations.requireNoNewerVersion)
                try Migrations.migrator.migrate(queue)
                // A newer process may have migrated it in between.
                try queue.read(Migrations.requireNoNewerVersion)
                for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
                    chmod(path + suffix, 0o600)
                }
                return SQLiteStore(queue: queue, kind: .sqlite, keyPath: keyPath(of: path))
            } catch let damaged as StoreDamaged {
                throw damaged
            } catch let newer as StoreNewerThanThisVersion {
                throw newer
            } catch {
                attempt += 1
                if attempt >= 40 { throw error }
                usleep(useconds_t(25_000 + attempt * 5_000))
            }
        }
    }

    /// A private store that dies with the process.
    public static func inMemory() throws -> SQLiteStore {
        let queue = try DatabaseQueue()
        try Migrations.migrator.migrate(queue)
        return SQLiteStore(queue: queue, kind: .memory, keyPath: nil)
    }

    private init(queue: DatabaseQueue, kind: StoreKind, keyPath: String?) {
        self.queue = queue
        self.kind = kind
        self.keyPath = keyPath
    }

    /// A new key from the system's generator (`SystemRandomNumberGenerator`, the kernel's CSPRNG; it stops the process rather
    /// than give no randomness).
    public static func systemKey() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<KeyFile.length).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// The key: a file store's from its key file, made when the store was (`file(at:)`), never made again here; an in-memory
    /// store's made with `make` on first use.
    public func secretKey(make: () -> [UInt8]) throws -> [UInt8] {
        guard let keyPath else {
            return memoryKey.withLock { key in
                if let key { return key }
                let made = make()
                key = made
                return made
            }
        }
        let contents = KeyFile.contents(keyPath)
        guard case .key(let key) = contents else {
            throw StoreDamaged(description: "the store's key file \(keyPath) \(contents.problem ?? "")")
        }
        return key
    }

    /// None: a SQLite store's key file is made with the store, before anything is written that a key could be refused for.
    public var unconfirmedKey: UnconfirmedKey? { nil }

    /// The body in one transaction that takes the write lock at its start.
    ///
    /// `BEGIN IMMEDIATE`, the body, `COMMIT`; on any error, `ROLLBACK` (which fails harmlessly
    /// where SQLite has already rolled back) and the first error thrown. The three statements are
    /// prepared once (`StatementCache.Control`).
    public func write<T>(_ body: (StoreTransaction) throws -> T) throws -> T {
        try transaction(.begin, readOnly: false, body)
    }

    /// The body in one read transaction: `BEGIN DEFERRED`, the body, `COMMIT`, its writes refused by the transaction itself.
    ///
    /// Not GRDB's `read`: it turns `PRAGMA query_only` on and off around the body, and a flag pragma expires every statement the
    /// connection has prepared, so each statement the next calls ran was compiled again (~3 M instructions for a call whose due
    /// work read the store).
    public func read<T>(_ body: (StoreTransaction) throws -> T) throws -> T {
        try transaction(.beginRead, readOnly: true, body)
    }

    private func transaction<T>(_ begin: StatementCache.Control, readOnly: Bool, _ body: (StoreTransaction) throws -> T) throws -> T {
        try Self.mapBusy {
            try queue.writeWithoutTransaction { db in
                var transaction = Transaction(db: db, statements: statements)
                transaction.readOnly = readOnly
                try transaction.run(begin)
                do {
                    let outcome = try body(transaction)
                    try transaction.run(.commit)
                    return outcome
                } catch {
                    try? transaction.run(.rollback)
                    throw error
                }
            }
        }
    }

    /// A database that cannot take the transaction is unavailable, not a bug.
    ///
    /// SQLITE_BUSY / SQLITE_LOCKED after the busy timeout, a file or directory made read-only, a full disk, an I/O error, a file that
    /// is no longer a database. SQLite rolled the transaction back: nothing was written; try again once the operator has mended it.
    private static func mapBusy<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            guard let reason = unavailableReasons.first(where: { $0.code == error.resultCode })?.reason else { throw error }
            let busy = error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
            throw StoreUnavailable(retryAfterSeconds: busy ? 1 : 5, reason: reason)
        }
    }

    /// The result codes that mean the database is out of reach, with what the log says of each (never the statement or a value).
    private static let unavailableReasons: [(code: ResultCode, reason: String)] = [
        (.SQLITE_BUSY, "another process holds the write lock"), (.SQLITE_LOCKED, "another process holds the write lock"),
        (.SQLITE_READONLY, "the database file or its directory is read-only"), (.SQLITE_PERM, "the database file may not be written"),
        (.SQLITE_FULL, "the disk is full"), (.SQLITE_IOERR, "an I/O error"), (.SQLITE_CANTOPEN, "the database file cannot be opened"),
        (.SQLITE_CORRUPT, "the database file is damaged"), (.SQLITE_NOTADB, "the file is not a database"),
    ]

    /// The underlying SQLite file's integrity check (tests).
    public func integrityCheck() throws -> String {
        try queue.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? "" }
    }
}
