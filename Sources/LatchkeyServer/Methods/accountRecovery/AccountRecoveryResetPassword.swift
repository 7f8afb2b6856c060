import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum AccountRecoveryResetPassword: RPCMethod {
    static let declaration = MethodDeclaration(
        "accountRecovery/resetPassword", "Sets a new password without the old one (state 3 only); back to state 0.",
        description: """
            Sets a new password without the old one, only while the insecure window is open (state 3); the account \
            returns to state 0 and every other session of the user ends.
            """,
        errors: [.userSessionInvalid, .accountRecoveryNotAllowed, .policyViolation])
    struct Params: WireParams {
        let sessionId: String
        let newPassword: String
        static let wire = (sessionId: WireMember.required("sessionId", .identifier), newPassword: WireMember.required("newPassword", .text))
    }
    static let result = AccountRecoveryFamily.recoveryResult
    static func handle(_ params: Params, _ context: CallContext) throws -> LatchkeyCore.AccountRecoveryStatus {
        try context.core.resetPasswordInWindow(sessionId: params.sessionId, newPassword: params.newPassword)
    }
}
