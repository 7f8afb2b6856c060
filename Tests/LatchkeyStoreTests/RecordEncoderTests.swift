import Foundation
import GRDB
import Testing
@testable import LatchkeyCore
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
        let (names, values) = try RecordEncoder.columns(of: Sample())
        #expect(names == ["id", "count", "flag", "note", "bytes", "maybeBytes"])
        #expect(values == ["a".databaseValue, 5.databaseValue, true.databaseValue, .null, Data([0, 255]).databaseValue, .null])
    }

    @Test func nestedValuesAreRefused() {
        struct Nested: Encodable {
            var id = "a"
            var inner = Sample()
        }
        #expect(throws: EncodingError.self) { _ = try RecordEncoder.columns(of: Nested()) }
        #expect(throws: EncodingError.self) { _ = try RecordEncoder.columns(of: [1, 2]) }
    }

    @Test func savingNilClearsTheColumn() throws {
        let store = try SQLiteStore.inMemory()
        var session = OperationSessionRecord(
            id: "phone", kind: "authentication", registrationId: "reg", activationCodeId: nil, onboardingProcessId: nil,
            pushedAuthenticationId: "push", challenge: [1, 2, 3], counter: 4, tokenExpiresAt: 99, createdAt: 10)
        try store.write { tx in try tx.save(session) }
        session.pushedAuthenticationId = nil
        session.tokenExpiresAt = nil
        session.challenge = []
        try store.write { tx in try tx.save(session) }
        let read = try store.read { tx in try tx.fetch(OperationSessionRecord.self, id: "phone") }
        #expect(read?.pushedAuthenticationId == nil)
        #expect(read?.tokenExpiresAt == nil)
        #expect(read?.challenge == [])
        #expect(read?.registrationId == "reg")
        #expect(read?.counter == 4)
    }
}
