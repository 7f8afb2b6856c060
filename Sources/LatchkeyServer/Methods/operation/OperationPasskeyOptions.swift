import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum OperationPasskeyOptions: RPCMethod {
    static let declaration = MethodDeclaration(
        "operation/passkeyOptions", "Request options to approve an operation with a passkey.",
        description: """
            For a session of the operation's user: request options (PublicKeyCredentialRequestOptionsJSON) whose challenge is \
            SHA-256 of LATCHKEY-OPERATION-V1, the operation's id, its hash and a nonce, so the assertion binds what the user \
            approves; allowCredentials are the user's passkeys for the application's RP id, user verification required. passkey \
            not allowed, an operation bound to one phone, or a user with no passkey there answers authMethodNotAllowed. The \
            ceremony is valid 300 s and serves one operation/passkeyApprove.
            """,
        errors: [.userSessionInvalid, .notFound, .operationNotPending, .authMethodNotAllowed])
    struct Params: WireParams {
        let sessionId: String
        let operationId: String
        let applicationId: String?
        static let wire = (
            sessionId: WireMember.required("sessionId", .identifier), operationId: WireMember.operationId,
            applicationId: WireMember.applicationId
        )
    }
    typealias Result = RequestCeremony
    static func handle(_ params: Params, _ context: CallContext) throws -> RequestCeremony {
        RequestCeremony(
            options: try context.core.operationPasskeyOptions(
                sessionId: params.sessionId, operationId: params.operationId, applicationId: params.applicationId))
    }
}
