import LatchkeyContract
import LatchkeyCore
import LatchkeyWire

enum ServerOperationList: RPCMethod {
    static let declaration = MethodDeclaration(
        "server/operation/list", "The operations a phone's inbox shows, and the operation-signing key.",
        description: """
            As operation/list for a phone outside the process: every pending operation of the registration's user and \
            application not bound to another registration, oldest first, and the application's operation-signing key. No \
            signature is needed (as server/registration/status); a registration that is not active answers its state's error.
            """,
        errors: [.notFound] + CommonErrors.registrationState)
    struct Params: WireParams {
        let registrationId: String
        static let wire = WireMember.registrationId
    }
    typealias Result = OperationInbox
    static func handle(_ params: Params, _ context: CallContext) throws -> OperationInbox {
        try context.core.session { try $0.operationInbox(registrationId: params.registrationId, caller: nil) }
    }
}
