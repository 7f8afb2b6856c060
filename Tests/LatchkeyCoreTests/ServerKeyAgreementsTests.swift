import LatchkeyContract
import LatchkeyDevice
import LatchkeyTestSupport
import Testing

@testable import LatchkeyCore

/// Issue 40: the shared secrets an offline code is checked with are kept sealed beside the
/// registration's server key, made with the first QR payload; a kept value that is missing, does not
/// open, or lacks a factor enrolled since is made again from the server key, and every code still
/// checks as the phone computed it.
@Suite struct ServerKeyAgreementsTests {
    private let template = paymentTemplate

    private func newOperation(_ system: TestSystem) throws -> String {
        try system.core.createOperation(NewOperation(userId: "alice", template: "payment", parameters: [("amount", "10.00")])).operationId
    }

    /// The registration's key row.
    private func keyRow(_ system: TestSystem, _ registrationId: String) throws -> RegistrationKeyRecord? {
        try system.core.transact { tx, _ in try tx.fetch(RegistrationKeyRecord.self, id: registrationId) }
    }

    /// The entries the row keeps (none when it keeps nothing, or what it keeps does not open).
    private func kept(_ system: TestSystem, _ registrationId: String) throws -> ServerKeyAgreements {
        try system.core.transact { tx, _ in
            guard let sealed = try tx.fetch(RegistrationKeyRecord.self, id: registrationId)?.sealedAgreements,
                let opened = try? system.core.unseal(sealed, .serverKeyAgreements, rowId: registrationId)
            else { return ServerKeyAgreements() }
            return ServerKeyAgreements(opened: opened)
        }
    }

    private func replaceKept(_ system: TestSystem, _ registrationId: String, with sealed: [UInt8]?) throws {
        try system.core.transact { tx, _ in
            guard var row = try tx.fetch(RegistrationKeyRecord.self, id: registrationId) else { throw TestFailure("no key row") }
            row.sealedAgreements = sealed
            try tx.save(row)
        }
    }

    /// A QR payload for a new operation, the phone's code for it with `parameter`, and the check's answer.
    private func approveOffline(_ system: TestSystem, _ parameter: AuthParameter, damage: (() throws -> Void)? = nil) throws -> OperationStatus {
        let operationId = try newOperation(system)
        let payload = try system.core.operationQRCode(operationId: operationId, registrationId: nil)
        let code = try system.devices.on("d1", pin: parameter.unmaskingPin) { try $0.approveOffline(qrPayload: payload, parameter) }.code
        try damage?()
        return try system.core.verifyOfflineOperation(operationId: operationId, code: code, registrationId: nil).status
    }

    @Test func theFirstQRPayloadKeepsTheDeviceAndPinAgreementsAndLaterOnesRewriteNothing() throws {
        let system = try makeSystem()
        let registrationId = try activatedWithPin(system)
        _ = try system.core.configureOperationTemplate(template)
        #expect(try keyRow(system, registrationId)?.sealedAgreements == nil)
        #expect(try approveOffline(system, AuthParameter(method: .pin, pin: "1234")) == .approved)
        let first = try #require(try keyRow(system, registrationId)?.sealedAgreements)
        #expect(try kept(system, registrationId).entries.count == 2)
        #expect(try approveOffline(system, AuthParameter(method: .pin, pin: "1234")) == .approved)
        #expect(try keyRow(system, registrationId)?.sealedAgreements == first)
        // Sealed for this row: under another row's id it does not open.
        #expect((try? system.core.unseal(first, .serverKeyAgreements, rowId: "reg_other")) == nil)
        #expect((try? system.core.unseal(first, .serverKey, rowId: registrationId)) == nil)
    }

    @Test func aFactorEnrolledAfterTheFirstPayloadIsAgreedAndKeptThen() throws {
        let system = try makeSystem()
        let registrationId = try activatedWithPin(system)
        _ = try system.core.configureOperationTemplate(template)
        #expect(try approveOffline(system, AuthParameter(method: .pin, pin: "1234")) == .approved)
        _ = try system.on { try $0.startAddOrUpdate() }
        _ = try system.on { try $0.finishAddOrUpdate(activation: AuthParameter(method: .faceId), proof: AuthParameter(method: .pin, pin: "1234")) }
        #expect(try kept(system, registrationId).entries.count == 2)
        #expect(try approveOffline(system, AuthParameter(method: .faceId)) == .approved)
        #expect(try kept(system, registrationId).entries.count == 3)
        #expect(try approveOffline(system, AuthParameter(method: .pin, pin: "1234")) == .approved)
    }

    @Test func aFactorRemovedIsDroppedAndOneEnrolledAgainIsAgreedAnew() throws {
        let system = try makeSystem()
        let registrationId = try activatedWithPin(system)
        _ = try system.core.configureOperationTemplate(template)
        let pin = AuthParameter(method: .pin, pin: "1234")
        _ = try system.on { try $0.startAddOrUpdate() }
        _ = try system.on { try $0.finishAddOrUpdate(activation: AuthParameter(method: .faceId), proof: pin) }
        #expect(try approveOffline(system, AuthParameter(method: .faceId)) == .approved)
        let withFace = try kept(system, registrationId).entries
        #expect(withFace.count == 3)
        _ = try system.on { try $0.deactivateAuthMethod(.faceId) }
        #expect(try approveOffline(system, pin) == .approved)
        #expect(try kept(system, registrationId).entries.count == 2)
        // Enrolled again: a new key, so a new agreement; the code made with it checks.
        _ = try system.on { try $0.startAddOrUpdate() }
        _ = try system.on { try $0.finishAddOrUpdate(activation: AuthParameter(method: .faceId), proof: pin) }
        #expect(try approveOffline(system, AuthParameter(method: .faceId)) == .approved)
        let again = try kept(system, registrationId).entries
        #expect(again.count == 3)
        #expect(Set(again.map(\.fingerprint)) != Set(withFace.map(\.fingerprint)))
    }

    @Test func keptAgreementsThatAreGoneOrDoNotOpenAreMadeAgainAndTheCodeStillChecks() throws {
        let system = try makeSystem()
        let registrationId = try activatedWithPin(system)
        _ = try system.core.configureOperationTemplate(template)
        #expect(try approveOffline(system, AuthParameter(method: .pin, pin: "1234")) == .approved)
        let good = try #require(try keyRow(system, registrationId)?.sealedAgreements)
        for damaged in [nil, [UInt8](repeating: 7, count: good.count), Array(good.dropLast()), [UInt8]()] as [[UInt8]?] {
            let status = try approveOffline(system, AuthParameter(method: .pin, pin: "1234")) {
                try replaceKept(system, registrationId, with: damaged)
            }
            #expect(status == .approved)
            #expect(try keyRow(system, registrationId)?.sealedAgreements == good)
        }
        // A wrong PIN still makes a wrong code with the agreements kept.
        #expect(throws: DomainError.self) { _ = try approveOffline(system, AuthParameter(method: .pin, pin: "9999")) }
    }

    @Test func whatDoesNotParseCountsAsNothing() {
        #expect(ServerKeyAgreements(opened: [UInt8](repeating: 1, count: 63)).entries.isEmpty)
        #expect(ServerKeyAgreements(opened: [UInt8](repeating: 1, count: 64 * 9)).entries.isEmpty)
        let two = ServerKeyAgreements(opened: [UInt8](repeating: 1, count: 64) + [UInt8](repeating: 2, count: 64))
        #expect(two.entries.count == 2)
        #expect(two.secret(for: [UInt8](repeating: 2, count: 32)) == [UInt8](repeating: 2, count: 32))
        #expect(ServerKeyAgreements(opened: two.bytes) == two)
    }
}

private struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
