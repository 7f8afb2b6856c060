import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

enum AdminLockRegistration: AdminFamily.RegistrationChange {
    static let declaration = MethodDeclaration(
        "admin/lockRegistration", "Locks a registration (lockedByAdmin); its tokens die.",
        description: """
            Locks a registration by the operator's decision (lockedByAdmin): its tokens are revoked and \
            authentications answer lockedByAdmin until admin/unlockRegistration.
            """,
        errors: [.notFound], access: .admin)
    static let change = AdminRegistrationChange.lock
}
