import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

enum AdminRemoveRegistration: AdminFamily.RegistrationChange {
    static let declaration = MethodDeclaration(
        "admin/removeRegistration", "Removes a registration (a stolen phone); its tokens die.",
        description: """
            Removes a registration for good, as for a stolen phone: its tokens are revoked and the device's later \
            calls answer registrationRemoved.
            """,
        errors: [.notFound], access: .admin)
    static let change = AdminRegistrationChange.remove
}
