import Foundation
import GRDB
import Testing

@testable import LatchkeyCore
@testable import LatchkeyRecords
@testable import LatchkeyStore

/// The column encoder: every property a column, nil as NULL, byte arrays as BLOBs.
@Suite struct RecordEncoderTests {
    struct Sample: Encodable {
        var id = "a"
        var count: Int64 = 5
        var flag = true
        var note: String?
        var bytes: [UInt8] = [0, 255]
        var maybeBytes: [UInt8]?
    }

    @Test func everyPropertyIsAColumnInOrderAndNilIsNull() throws {
        let (names, values) = try RecordEncoder<SQLiteColumnValues>.columns(of: Sample())
        #expect(names == ["id", "count", "flag", "note", "bytes", "maybeBytes"])
        #expect(values == ["a".databaseValue, 5.databaseValue, true.databaseValue, .null, Data([0, 255]).databaseValue, .null])
    }

    @Test func nestedValuesAreRefused() {
        struct Nested: Encodable {
            var id = "a"
            var inner = Sample()
        }
        #expect(throws: EncodingError.self) { _ = try RecordEncoder<SQLiteColumnValues>.columns(of: Nested()) }
        #expect(throws: EncodingError.self) { _ = try RecordEncoder<SQLiteColumnValues>.columns(of: [1, 2]) }
    }

    @Test func savingNilClearsTheColumn() throws {
        let store = try SQLiteStore.inMemory()
        var registration = RegistrationRecord(
            id: "reg", userId: "u", applicationId: "default", deviceId: "phone", state: "active", authMethods: "device,pin",
            failedAttempts: 4, lastAttempt: 99, possessionPublicKey: [1, 2, 3], pinPublicKey: [4], touchIdPublicKey: nil,
            faceIdPublicKey: nil, recoveryPublicKey: [5, 6], recoveryFailedAttempts: 0, keyGeneration: 0, signCounter: 7,
            createdAt: 10, name: "phone")
        try store.write { tx in try tx.save(registration) }
        registration.pinPublicKey = nil
        registration.lastAttempt = nil
        registration.name = nil
        registration.possessionPublicKey = []
        try store.write { tx in try tx.save(registration) }
        let read = try store.read { tx in try tx.fetch(RegistrationRecord.self, id: "reg") }
        #expect(read?.pinPublicKey == nil)
        #expect(read?.lastAttempt == nil)
        #expect(read?.name == nil)
        #expect(read?.possessionPublicKey == [])
        #expect(read?.recoveryPublicKey == [5, 6])
        #expect(read?.failedAttempts == 4)
    }
}
