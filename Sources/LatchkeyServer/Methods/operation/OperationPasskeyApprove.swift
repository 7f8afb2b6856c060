import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum OperationPasskeyApprove: RPCMethod {
    static let declaration = MethodDeclaration(
        "operation/passkeyApprove", "Approves an operation with a passkey assertion.",
        description: """
            Checks the ceremony of operation/passkeyOptions, the operation (still pending), then the passkey as passkey/login does \
            with user verification always required (another user's passkey answers credential). Approves it (approvedWith \
            passkey). A passkeyInvalid uses up the ceremony, counts nothing on the operation and is audited passkeyRejected.
            """,
        errors: [.noSessionInProgress, .sessionExpired, .notFound, .operationNotPending, .passkeyInvalid])
    struct Params: WireParams {
        let ceremonyId: String
        let credential: AssertionResponse
        static let wire = (
            ceremonyId: WireMember.required("ceremonyId", .identifier),
            credential: WireMember.required("credential", .assertionResponse, "AuthenticationResponseJSON")
        )
    }
    typealias Result = Operation
    static func handle(_ params: Params, _ context: CallContext) throws -> Operation {
        try context.core.approveOperationWithPasskey(ceremonyId: params.ceremonyId, credential: params.credential)
    }
}
