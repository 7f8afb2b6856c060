import LatchkeyContract
import LatchkeyCore
import LatchkeyWire

enum ServerOperationApprove: RPCMethod {
    static let declaration = MethodDeclaration(
        "server/operation/approve", "Approves an operation: the device signature and a second factor over the hash the phone signed.",
        description: """
            Checked in the order of the contract's Operations rules: the challenge (issued for this operation), the operation, \
            the registration's state, the method (one the operation allows; device alone is not enough), the device signature \
            over the approveOperation payload whose last line is operationHash (a failing one answers registrationRemoved, uses \
            up the challenge and counts nothing), then operationHash against the operation's (operationDataMismatch, counted on \
            the operation only), then the second factor (a wrong one counts on the registration and on the operation). The \
            failure that reaches maxFailureCount fails the operation (operationFailed).
            """,
        errors: ServerFamily.challengeErrors + OperationFamily.approvalErrors + [.registrationLocked])
    struct Params: WireParams {
        let signed: ServerFamily.SignedParams
        let operationId: String
        let operationHash: String
        static let wire = (
            signed: WireMember.inline(ServerFamily.SignedParams.self), operationId: WireMember.operationId,
            operationHash: WireMember.required("operationHash", .text, "the hash the phone signed: of what it showed")
        )
    }
    typealias Result = Operation
    static func handle(_ params: Params, _ context: CallContext) throws -> Operation {
        let signatures = params.signed.signatures.domain
        return try context.core.session {
            try $0.approveOperation(
                registrationId: params.signed.registrationId, challengeId: params.signed.challengeId, operationId: params.operationId,
                operationHash: params.operationHash, signatures: signatures, caller: nil)
        }
    }
}
