import LatchkeyContract
import LatchkeyCore
import LatchkeyWire

enum ServerOperationChallenge: RPCMethod {
    static let declaration = MethodDeclaration(
        "server/operation/challenge", "A single-use challenge to approve or reject one operation, with what the phone shows.",
        description: """
            Checks the operation (the registration's user's, of its application, not bound to another registration, pending) \
            and the registration's state as an approval does, and answers a challenge bound to that operation and registration \
            (single-use, valid 300 s), the operation, its hash (for diagnosis: the phone signs the hash of what it shows), the \
            operation-signing key and the registration's server key.
            """,
        errors: [.notFound, .operationNotPending] + CommonErrors.registrationState)
    struct Params: WireParams {
        let registrationId: String
        let operationId: String
        static let wire = (registrationId: WireMember.registrationId, operationId: WireMember.operationId)
    }
    typealias Result = OperationChallenge
    static func handle(_ params: Params, _ context: CallContext) throws -> OperationChallenge {
        try context.core.session {
            try $0.operationChallenge(registrationId: params.registrationId, operationId: params.operationId, caller: nil)
        }
    }
}
