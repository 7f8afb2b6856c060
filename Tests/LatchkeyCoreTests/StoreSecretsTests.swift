import Foundation
import LatchkeyContract
import LatchkeyDevice
import LatchkeySimulator
import LatchkeyStore
import Testing

@testable import LatchkeyCore

/// Security property 1: the store holds no secret in clear (inspect the SQLite file).
@Suite struct StoreSecretsTests {
    @Test func sqliteFileHoldsNoPinPasswordCodeOrToken() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-secrets-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.sqlite").path
        let system = try Latchkey(store: SQLiteStore.file(at: path), clock: SystemClock(), random: SystemRandomSource())
        let devices = try SimulatedDevices(core: system)
        let pin = "80512397"
        let password = "correct horse battery"
        _ = try system.createUser(NewUser(userId: "carol", email: "carol@example.com", password: password))
        let code = try system.createActivationCode(userId: "carol", applicationId: nil).code
        _ = try devices.create(NewDevice(deviceId: "phone"))
        _ = try devices.on("phone") { try $0.startActivation(code: code, applicationId: nil) }
        let outcome = try devices.on("phone") {
            try $0.finishActivation(AuthParameter(method: .pin, pin: pin), tokenPurpose: .addOrUpdateRecovery, activationName: nil)
        }
        let token = try #require(outcome.token)
        let session = try system.login(.email("carol@example.com"), password: password)
        try devices.on("phone") { try $0.startRecoveryChange(token: token, purpose: .addOrUpdateRecovery) }
        _ = try devices.on("phone") { try $0.finishRecoveryAddOrUpdate(code: "my recovery words", tokenPurpose: .none) }

        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        if let wal = try? Data(contentsOf: URL(fileURLWithPath: path + "-wal")) { bytes.append(wal) }
        for secret in [pin, password, code, token, session.sessionId, "my recovery words"] {
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "a secret was found in the store")
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }
}
