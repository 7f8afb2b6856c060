@testable import LatchkeyCore
import LatchkeyStore

/// A fresh in-memory system on a manual clock and a seeded generator.
func makeSystem(seed: UInt64 = 1) throws -> Latchkey {
    try Latchkey(store: SQLiteStore.inMemory(), clock: ManualClock(start: 1_767_225_600), random: SeededRandomSource(seed: seed))
}

/// A user with an activated PIN registration on device `d1`.
func activatedWithPin(_ system: Latchkey, pin: String = "1234") throws -> String {
    _ = try system.createUser(NewUser(userId: "alice", email: "alice@example.com"))
    let code = try system.createActivationCode(userId: "alice", applicationId: nil).code
    _ = try system.createDevice(NewDevice(deviceId: "d1"))
    _ = try system.startActivation(deviceId: "d1", activationCode: code, applicationId: nil)
    return try system.finishActivation(deviceId: "d1", AuthParameter(method: .pin, pin: pin), tokenPurpose: .none).registrationId
}

/// Runs `body` and returns the domain error it threw.
func domainError(_ body: () throws -> Void) -> DomainError? {
    do {
        try body()
        return nil
    } catch let error as DomainError {
        return error
    } catch {
        return nil
    }
}
