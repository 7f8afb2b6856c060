import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum AdminVerifyOfflineOperation: RPCMethod {
    static let declaration = MethodDeclaration(
        "admin/verifyOfflineOperation", "Checks the code a phone showed for an offline approval.",
        description: """
            Checks a code (8 digits, -, 8 digits) against the newest QR payload made for the operation and registration (none: \
            noSessionInProgress; 300 s old: sessionExpired): the device part, then the second part against each two-factor \
            method the registration has activated that the operation allows. A wrong device part counts one on the operation \
            only (a stranger typing digits locks no phone); a wrong second part counts on the operation and on the registration, \
            as a wrong PIN does; both right approve it (approvedWith offline). A wrong code does not use up the nonce.
            """,
        errors: OperationFamily.approvalErrors + [.noSessionInProgress, .sessionExpired], access: .admin)
    struct Params: WireParams {
        let operationId: String
        let code: String
        let registrationId: String?
        static let wire = (
            operationId: WireMember.operationId, code: WireMember.required("code", .offlineCode, "8 digits, -, 8 digits"),
            registrationId: WireMember.optional("registrationId", .identifier, "default: that of the newest QR payload made for the operation")
        )
    }
    typealias Result = Operation
    static func handle(_ params: Params, _ context: CallContext) throws -> Operation {
        try context.core.verifyOfflineOperation(operationId: params.operationId, code: params.code, registrationId: params.registrationId)
    }
}
