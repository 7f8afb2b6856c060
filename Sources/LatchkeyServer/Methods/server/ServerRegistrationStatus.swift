import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

enum ServerRegistrationStatus: RPCMethod {
    static let declaration = MethodDeclaration(
        "server/registration/status", "What a device shows without authenticating: state, methods, attempts, recovery.",
        description: """
            Reads the registration's state, activated methods, PIN attempts left and recovery methods, without a \
            challenge or a signature and without counting anything.
            """,
        errors: [.notFound])
    static func handle(_ params: RegistrationParams, _ context: CallContext) throws -> RegistrationStatus {
        try context.core.session { try $0.registrationStatus(registrationId: params.registrationId) }
    }
}
