import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

enum AdminGetRegistration: RPCMethod {
    static let declaration = MethodDeclaration(
        "admin/getRegistration", "A registration as the server holds it.",
        description: """
            Reads a registration as the server holds it: its user, application, name, state (active, locked, \
            lockedByAdmin, verificationPending, removed), activated auth methods, failed-attempt counter and recovery \
            methods.
            """,
        errors: [.notFound], access: .admin)
    static func handle(_ params: RegistrationParams, _ context: CallContext) throws -> RegistrationInfo {
        try context.core.registrationInfo(params.registrationId)
    }
}
