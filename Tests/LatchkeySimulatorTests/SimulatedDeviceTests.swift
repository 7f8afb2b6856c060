import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeySimulator
import LatchkeyStore
import Testing

/// Simulated phones: the device half over an in-process connection to the server half, their
/// keychains and backups in the store.
@Suite struct SimulatedDeviceTests {
    private let core: Latchkey
    private let devices: SimulatedDevices

    init() throws {
        core = try Latchkey(store: SQLiteStore.inMemory(), clock: ManualClock(start: 1_767_225_600), random: SeededRandomSource(seed: 5))
        devices = try SimulatedDevices(core: core)
        _ = try core.createUser(NewUser(userId: "bob", email: "bob@example.com"))
    }

    /// Activates `deviceId` for bob with a PIN; answers the registration.
    private func activate(_ deviceId: String, pin: String = "1357") throws -> String {
        let code = try core.createActivationCode(userId: "bob", applicationId: nil).code
        _ = try devices.create(NewDevice(deviceId: deviceId))
        _ = try devices.on(deviceId) { try $0.startActivation(code: code, applicationId: nil) }
        return try devices.on(deviceId) {
            try $0.finishActivation(AuthParameter(method: .pin, pin: pin), tokenPurpose: .none, activationName: nil).registrationId
        }
    }

    @Test("an activation walk leaves the device and the server holding the same registration")
    func activationWalk() throws {
        _ = try devices.create(NewDevice(deviceId: "p1"))
        #expect(try devices.on("p1") { try $0.isActivatedLocally } == false)
        let code = try core.createActivationCode(userId: "bob", applicationId: nil).code
        _ = try devices.on("p1") { try $0.startActivation(code: code, applicationId: nil) }
        let registrationId = try devices.on("p1") {
            try $0.finishActivation(AuthParameter(method: .pin, pin: "1357"), tokenPurpose: .none, activationName: nil).registrationId
        }
        #expect(try devices.on("p1") { try $0.isActivatedLocally })
        #expect(try devices.on("p1") { try $0.registrationId } == registrationId)
        let info = try core.registrationInfo(registrationId)
        #expect(info.userId == "bob")
        #expect(info.authMethods.contains(.pin))
    }

    @Test("the right PIN authenticates; a wrong one is told apart only by the server, which counts it")
    func pinIsCheckedByTheServer() throws {
        let registrationId = try activate("p2")
        _ = try devices.on("p2") { try $0.startAuthentication() }
        #expect(throws: DomainError.self) {
            _ = try devices.on("p2") { try $0.finishAuthentication(AuthParameter(method: .pin, pin: "0000"), tokenPurpose: .none) }
        }
        #expect(try core.registrationInfo(registrationId).failedAttempts == 1)
        _ = try devices.on("p2") { try $0.startAuthentication() }
        _ = try devices.on("p2") { try $0.finishAuthentication(AuthParameter(method: .pin, pin: "1357"), tokenPurpose: .none) }
        #expect(try core.registrationInfo(registrationId).failedAttempts == 0)
    }

    @Test("a PIN derived before the transaction authenticates, and a wrong one derived so still counts")
    func pinDerivedAhead() throws {
        let registrationId = try activate("p5")
        _ = try devices.on("p5") { try $0.startAuthentication() }
        #expect(throws: DomainError.self) {
            _ = try devices.on("p5", pin: "0000") { try $0.finishAuthentication(AuthParameter(method: .pin, pin: "0000"), tokenPurpose: .none) }
        }
        #expect(try core.registrationInfo(registrationId).failedAttempts == 1)
        _ = try devices.on("p5") { try $0.startAuthentication() }
        _ = try devices.on("p5", pin: "1357") { try $0.finishAuthentication(AuthParameter(method: .pin, pin: "1357"), tokenPurpose: .none) }
        #expect(try core.registrationInfo(registrationId).failedAttempts == 0)
    }

    @Test("a salt another process changed since this one last ran the device is derived again, never used stale")
    func staleSaltIsDerivedAgain() throws {
        let registrationId = try activate("p6")
        let other = try SimulatedDevices(core: core)
        // This process last saw the salt of PIN 1357; the other changes the PIN to 2468 (a new salt)
        // and opens the authentication this process finishes.
        _ = try devices.on("p6") { try $0.startAuthentication() }
        _ = try other.on("p6") { try $0.startAddOrUpdate() }
        _ = try other.on("p6", pin: "1357") {
            try $0.finishAddOrUpdate(activation: AuthParameter(method: .pin, pin: "2468"), proof: AuthParameter(method: .pin, pin: "1357"))
        }
        _ = try other.on("p6") { try $0.startAuthentication() }
        _ = try devices.on("p6", pin: "2468") { try $0.finishAuthentication(AuthParameter(method: .pin, pin: "2468"), tokenPurpose: .none) }
        #expect(try core.registrationInfo(registrationId).failedAttempts == 0)
        _ = try other.on("p6") { try $0.startAuthentication() }
        #expect(throws: DomainError.self) {
            _ = try devices.on("p6", pin: "1357") { try $0.finishAuthentication(AuthParameter(method: .pin, pin: "1357"), tokenPurpose: .none) }
        }
        #expect(try core.registrationInfo(registrationId).failedAttempts == 1)
    }

    @Test("a backup carries no activation: the restored phone is not activated")
    func backupLeavesTheActivationBehind() throws {
        _ = try activate("p3")
        let backupId = try devices.backup(deviceId: "p3", kind: .computerEncrypted)
        let restored = try devices.restore(backupId: backupId, NewDevice(deviceId: "p3-new"))
        #expect(restored == "p3-new")
        #expect(try devices.on("p3-new") { try $0.isActivatedLocally } == false)
        #expect(try devices.on("p3") { try $0.isActivatedLocally })
    }

    @Test("an unknown device is notFound")
    func unknownDevice() {
        #expect(throws: DomainError.self) { _ = try devices.on("nobody") { try $0.isActivatedLocally } }
    }
}
