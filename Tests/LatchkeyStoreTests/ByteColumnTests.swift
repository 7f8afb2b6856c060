import Foundation
import GRDB
import Testing

@testable import LatchkeyCore
@testable import LatchkeySimulator
@testable import LatchkeyStore

/// Byte arrays are stored as BLOBs; stores written as JSON text by v1-era binaries are converted.
@Suite struct ByteColumnTests {
    /// A store as a v1-era binary left it: schema v1 only, with these `device_item` rows, and its key file beside it.
    private func writeV1Store(at path: String, rows: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true)
        _ = try KeyFile.readOrCreate(at: path + ".key") { [UInt8](repeating: 7, count: KeyFile.length) }
        let queue = try DatabaseQueue(path: path)
        var v1 = DatabaseMigrator()
        v1.registerMigration("v1") { db in try db.execute(sql: Migrations.v1) }
        try v1.migrate(queue)
        try queue.write { db in
            try db.execute(sql: "INSERT INTO device_item (id, deviceId, name, value, thisDeviceOnly) VALUES \(rows)")
        }
    }

    @Test func byteArraysAreWrittenAsBlobsAndReadBack() throws {
        let (directory, path) = temporaryStorePath("bytes")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore.file(at: path)
        let values: [[UInt8]] = [[], [0], [0, 255, 7, 128], Array(0...255)]
        try store.write { tx in
            for (index, value) in values.enumerated() {
                try tx.save(DeviceItemRecord(id: "d/\(index)", deviceId: "d", name: "n\(index)", value: value, thisDeviceOnly: true))
            }
        }
        for (index, value) in values.enumerated() {
            let read = try store.read { tx in try tx.fetch(DeviceItemRecord.self, id: "d/\(index)") }
            #expect(read?.value == value)
        }
        let queue = try DatabaseQueue(path: path)
        let types = try queue.read { db in try String.fetchAll(db, sql: "SELECT typeof(value) FROM device_item") }
        #expect(types == Array(repeating: "blob", count: values.count))
    }

    @Test func v1JSONTextIsConvertedToBlobsOnOpen() throws {
        let (directory, path) = temporaryStorePath("bytes")
        defer { try? FileManager.default.removeItem(at: directory) }
        try writeV1Store(at: path, rows: "('d/a', 'd', 'a', '[4,237,0,255]', 1), ('d/b', 'd', 'b', X'0102', 1)")
        let store = try SQLiteStore.file(at: path)
        let first = try store.read { tx in try tx.fetch(DeviceItemRecord.self, id: "d/a") }
        let second = try store.read { tx in try tx.fetch(DeviceItemRecord.self, id: "d/b") }
        #expect(first?.value == [4, 237, 0, 255])
        #expect(second?.value == [1, 2])
        let queue = try DatabaseQueue(path: path)
        let types = try queue.read { db in try String.fetchAll(db, sql: "SELECT typeof(value) FROM device_item ORDER BY id") }
        #expect(types == ["blob", "blob"])
    }

    @Test func textThatIsNotAByteArrayStopsTheMigration() throws {
        let (directory, path) = temporaryStorePath("bytes")
        defer { try? FileManager.default.removeItem(at: directory) }
        try writeV1Store(at: path, rows: "('d/a', 'd', 'a', 'not bytes', 1)")
        #expect(throws: (any Error).self) { try SQLiteStore.file(at: path) }
    }
}
