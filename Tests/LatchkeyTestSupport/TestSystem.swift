import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeySimulator
import LatchkeyStore

/// A fresh in-memory system on a manual clock and a seeded generator: the server half and its
/// simulated phones.
public struct TestSystem {
    public let core: Latchkey
    public let devices: SimulatedDevices

    /// Runs `body` on a simulated phone (`d1` unless named).
    public func on<T>(_ deviceId: String = "d1", _ body: (Device) throws -> T) throws -> T {
        try devices.on(deviceId, body)
    }

    public func failedAttempts(_ registrationId: String) throws -> Int {
        try core.registrationInfo(registrationId).failedAttempts
    }
}

public func makeSystem(seed: UInt64 = 1) throws -> TestSystem {
    let core = try Latchkey(store: SQLiteStore.inMemory(), clock: ManualClock(start: 1_767_225_600), random: SeededRandomSource(seed: seed))
    return TestSystem(core: core, devices: try SimulatedDevices(core: core))
}

/// A user with an activated PIN registration on device `d1`.
public func activatedWithPin(_ system: TestSystem, pin: String = "1234") throws -> String {
    _ = try system.core.createUser(NewUser(userId: "alice", email: "alice@example.com"))
    let code = try system.core.createActivationCode(userId: "alice", applicationId: nil).code
    _ = try system.devices.create(NewDevice(deviceId: "d1"))
    _ = try system.on { try $0.startActivation(code: code, applicationId: nil) }
    return try system.on {
        try $0.finishActivation(AuthParameter(method: .pin, pin: pin), tokenPurpose: .none, activationName: nil).registrationId
    }
}

/// The operation tests' template: "Pay ${amount} EUR" to CZ27…, an hour to approve, in the default application.
public let paymentTemplate = OperationTemplate(
    applicationId: ApplicationConfig.defaultApplicationId, name: "payment", title: "Pay ${amount} EUR", message: "To CZ27",
    data: "A1*A${amount}EUR*ICZ2730300000001165254011", attributes: [], maxFailureCount: 5, ttlSeconds: 3600,
    allowedMethods: OperationTemplate.defaultAllowedMethods)

/// Runs `body` and returns the domain error it threw.
public func domainError(_ body: () throws -> Void) -> DomainError? {
    do {
        try body()
        return nil
    } catch let error as DomainError {
        return error
    } catch {
        return nil
    }
}
