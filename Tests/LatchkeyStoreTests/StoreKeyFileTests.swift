import Foundation
import LatchkeyContract
import Testing

@testable import LatchkeyCore
@testable import LatchkeyStorage
@testable import LatchkeyStore

/// A SQLite store's key file is made with the store, before the store is first written, and never made again for a store with
/// content: a new key would leave every code, token and sealed secret in it unreadable.
@Suite struct StoreKeyFileTests {
    /// A key file this process made is taken back only while it is the file at its path: never a key found, nor a file put there
    /// since (`--key-file` on PostgreSQL, for a database that refuses the key made).
    @Test func onlyAKeyFileThisProcessMadeAndStillInPlaceIsRemoved() throws {
        let (directory, path) = temporaryStorePath("key")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let keyPath = path + ".key"
        let first = try KeyFile.readOrCreateNoting(at: keyPath) { [UInt8](repeating: 3, count: KeyFile.length) }
        let made = try #require(first.made)
        #expect(try KeyFile.readOrCreateNoting(at: keyPath) { [] }.made == nil)
        // Replaced by another file (the deployment's key, put in place meanwhile): kept.
        let other = keyPath + ".other"
        _ = try KeyFile.readOrCreate(at: other) { [UInt8](repeating: 4, count: KeyFile.length) }
        #expect(rename(other, keyPath) == 0)
        #expect(!KeyFile.remove(made))
        #expect(KeyFile.read(keyPath) == [UInt8](repeating: 4, count: KeyFile.length))
        // The one made, still in place: removed.
        try FileManager.default.removeItem(atPath: keyPath)
        let again = try #require(try KeyFile.readOrCreateNoting(at: keyPath) { [UInt8](repeating: 5, count: KeyFile.length) }.made)
        #expect(KeyFile.remove(again))
        #expect(KeyFile.contents(keyPath) == .missing)
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
