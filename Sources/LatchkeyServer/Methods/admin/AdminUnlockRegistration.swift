import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

enum AdminUnlockRegistration: AdminFamily.RegistrationChange {
    static let declaration = MethodDeclaration(
        "admin/unlockRegistration", "Unlocks a registration and resets its PIN and recovery counters; never lifts removed.",
        description: """
            Unlocks a locked registration and resets its failed-PIN and recovery counters. It never brings back a \
            removed registration.
            """,
        errors: [.notFound], access: .admin)
    static let change = AdminRegistrationChange.unlock
}
