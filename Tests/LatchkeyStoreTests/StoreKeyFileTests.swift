import Foundation
import LatchkeyContract
import Testing

@testable import LatchkeyCore
@testable import LatchkeyStorage
@testable import LatchkeyStore

/// A SQLite store's key file is made with the store, before the store is first written, and never made again for a store with
/// content: a new key would leave every code, token and sealed secret in it unreadable.
@Suite struct StoreKeyFileTests {
    /// A key proposed for a store (`--key-file` on PostgreSQL) is beside the path, never at it, until the store accepts it: another
    /// process finds the proposal, not a key in place; a refused one is dropped only while it is the file proposed.
    @Test func aProposedKeyIsPutInPlaceOnlyWhenKept() throws {
        try withKeyPaths { keyPath, pendingPath, _ in try proposalsAreKeptOnlyWhenKept(keyPath, pendingPath) }
    }

    private func proposalsAreKeptOnlyWhenKept(_ keyPath: String, _ pendingPath: String) throws {
        let three = [UInt8](repeating: 3, count: KeyFile.length)
        let first = try KeyFile.readOrPropose(at: keyPath) { three }
        #expect(first.key == three)
        #expect(KeyFile.contents(keyPath) == .missing)
        #expect(KeyFile.read(pendingPath) == three)
        // Another process: the same proposal, still unconfirmed.
        let second = try KeyFile.readOrPropose(at: keyPath) { [] }
        #expect(second.key == three)
        #expect(second.pending != nil)
        // Replaced by another file meanwhile: not dropped.
        let other = pendingPath + ".other"
        _ = try KeyFile.readOrCreate(at: other) { [UInt8](repeating: 4, count: KeyFile.length) }
        #expect(rename(other, pendingPath) == 0)
        #expect(!KeyFile.drop(try #require(first.pending)))
        #expect(KeyFile.read(pendingPath) == [UInt8](repeating: 4, count: KeyFile.length))
        // The one proposed, still in place: dropped.
        let fourth = try #require(try KeyFile.readOrPropose(at: keyPath) { [] }.pending)
        #expect(KeyFile.drop(fourth))
        #expect(KeyFile.contents(pendingPath) == .missing)
        // Kept: at the path, the proposal gone; found in place after.
        let five = [UInt8](repeating: 5, count: KeyFile.length)
        let kept = try #require(try KeyFile.readOrPropose(at: keyPath) { five }.pending)
        try KeyFile.keep(kept)
        #expect(KeyFile.read(keyPath) == five)
        #expect(KeyFile.contents(pendingPath) == .missing)
        let found = try KeyFile.readOrPropose(at: keyPath) { [] }
        #expect(found.key == five)
        #expect(found.pending == nil)
        // A path holding another key by the time the store accepts a proposal: not kept, the proposal stays (its only copy).
        try FileManager.default.removeItem(atPath: keyPath)
        let late = try #require(try KeyFile.readOrPropose(at: keyPath) { three }.pending)
        _ = try KeyFile.readOrCreate(at: keyPath) { five }
        #expect(throws: KeyFileProblem.self) { try KeyFile.keep(late) }
        #expect(KeyFile.read(pendingPath) == three)
        // A proposal left beside the key it became (its process died before removing it) goes; another key's stays.
        #expect(try KeyFile.readOrPropose(at: keyPath) { [] }.key == five)
        #expect(KeyFile.read(pendingPath) == three)
        try FileManager.default.removeItem(atPath: pendingPath)
        _ = try KeyFile.readOrCreate(at: pendingPath) { five }
        #expect(try KeyFile.readOrPropose(at: keyPath) { [] }.pending == nil)
        #expect(KeyFile.contents(pendingPath) == .missing)
    }

    /// What is kept is the key proposed, whatever the pending file holds by then (another process's proposal, put there after this
    /// one's was dropped); and a symbolic link is no proposal.
    @Test func aKeptProposalIsItsOwnKeyAndALinkIsNoProposal() throws {
        try withKeyPaths { keyPath, pendingPath, path in try aKeptProposalIsItsOwnKey(keyPath, pendingPath, beside: path) }
    }

    private func aKeptProposalIsItsOwnKey(_ keyPath: String, _ pendingPath: String, beside path: String) throws {
        let one = [UInt8](repeating: 1, count: KeyFile.length)
        let two = [UInt8](repeating: 2, count: KeyFile.length)
        let first = try #require(try KeyFile.readOrPropose(at: keyPath) { one }.pending)
        #expect(KeyFile.drop(first))
        _ = try KeyFile.readOrPropose(at: keyPath) { two }
        try KeyFile.keep(first)
        #expect(KeyFile.read(keyPath) == one)
        #expect(KeyFile.read(pendingPath) == two)
        // A link at the pending path, even to a key: named, not followed.
        try FileManager.default.removeItem(atPath: keyPath)
        try FileManager.default.removeItem(atPath: pendingPath)
        let elsewhere = path + ".elsewhere"
        _ = try KeyFile.readOrCreate(at: elsewhere) { two }
        #expect(symlink(elsewhere, pendingPath) == 0)
        #expect {
            try KeyFile.readOrPropose(at: keyPath) { one }
        } throws: { error in
            (error as? KeyFileProblem)?.path == pendingPath && (error as? KeyFileProblem)?.contents == .unreadable("it is a symbolic link")
        }
        #expect(KeyFile.contents(keyPath) == .missing)
    }

    /// A key file's path and its pending path in a directory of their own, removed after `body` (which gets a store's path there too).
    private func withKeyPaths(_ body: (String, String, String) throws -> Void) throws {
        let (directory, path) = temporaryStorePath("key")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try body(path + ".key", path + ".key" + KeyFile.pendingSuffix, path)
    }

    @Test func aNewStoreGetsItsKeyFileAndKeepsIt() throws {
        let (directory, path) = temporaryStorePath("key")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore.file(at: path) { [UInt8](repeating: 9, count: KeyFile.length) }
        #expect(try store.secretKey { [] } == [UInt8](repeating: 9, count: KeyFile.length))
        #expect(SQLiteStore.unusableFile(at: path) == nil)
        // Opened again: the same key, whatever `makeKey` would make.
        let again = try SQLiteStore.file(at: path) { [UInt8](repeating: 1, count: KeyFile.length) }
        #expect(try again.secretKey { [] } == [UInt8](repeating: 9, count: KeyFile.length))
    }

    @Test func aStoreWithContentWhoseKeyFileIsGoneIsRefusedNotGivenANewKey() throws {
        let (directory, path) = temporaryStorePath("key")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore.file(at: path)
        try FileManager.default.removeItem(atPath: path + ".key")
        // At start (the command line's check), at open, and for the key of a store already open.
        #expect(SQLiteStore.unusableFile(at: path)?.contains("key file") == true)
        #expect(throws: StoreDamaged.self) { try SQLiteStore.file(at: path) }
        #expect(throws: StoreDamaged.self) { try store.secretKey { [UInt8](repeating: 1, count: KeyFile.length) } }
        #expect(!FileManager.default.fileExists(atPath: path + ".key"))
        // A key file cut short is no key either.
        FileManager.default.createFile(atPath: path + ".key", contents: Data([1, 2, 3]))
        #expect(SQLiteStore.unusableFile(at: path)?.contains("holds 3 bytes, not 32") == true)
        #expect(throws: StoreDamaged.self) { try SQLiteStore.file(at: path) }
    }

    @Test func aKeyFileThatCannotBeReadIsSaidSoWithNoAdviceToRemoveTheStore() throws {
        let (directory, path) = temporaryStorePath("key")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore.file(at: path)
        // Something at the key's path that is no file to read (the tests run as root, whom no file mode stops).
        try FileManager.default.removeItem(atPath: path + ".key")
        try FileManager.default.createDirectory(atPath: path + ".key", withIntermediateDirectories: false)
        let problem = SQLiteStore.unusableFile(at: path)
        #expect(problem?.contains("cannot be read (not a regular file)") == true)
        #expect(problem?.contains("remove") == false)
        #expect(throws: StoreDamaged.self) { try store.secretKey { [UInt8](repeating: 1, count: KeyFile.length) } }
        #expect(KeyFile.contents(path + ".key") == .unreadable("not a regular file"))
        #expect(throws: KeyFileProblem.self) { try KeyFile.readOrCreate(at: path + ".key") { [UInt8](repeating: 1, count: KeyFile.length) } }
        #expect(KeyFile.contents(path + ".nothing") == .missing)
        // A FIFO would have held a blocking open for ever.
        #expect(mkfifo(path + ".fifo", 0o600) == 0)
        #expect(KeyFile.contents(path + ".fifo") == .unreadable("not a regular file"))
        // Its description never shows a key.
        #expect("\(KeyFile.Contents.key([UInt8](repeating: 0xAB, count: KeyFile.length)))" == "a key of 32 bytes")
    }
}

/// A store remembers which key it was first used with (an HMAC of a fixed text, never the key) and refuses another.
@Suite struct StoreKeyCheckTests {
    @Test func aStoreOpenedWithAnotherKeyIsRefused() throws {
        let (directory, path) = temporaryStorePath("check")
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try Latchkey(store: SQLiteStore.file(at: path), clock: SystemClock(), random: SystemRandomSource())
        // Opened again with its key: served.
        _ = try Latchkey(store: SQLiteStore.file(at: path), clock: SystemClock(), random: SystemRandomSource())
        // Another deployment's key file in its place: refused, whatever the file holds.
        try Data(repeating: 0x42, count: KeyFile.length).write(to: URL(fileURLWithPath: path + ".key"))
        #expect(throws: StoreKeyMismatch.self) {
            _ = try Latchkey(store: SQLiteStore.file(at: path), clock: SystemClock(), random: SystemRandomSource())
        }
    }
}
