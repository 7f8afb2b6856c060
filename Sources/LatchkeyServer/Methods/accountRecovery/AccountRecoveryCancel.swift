import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

enum AccountRecoveryCancel: SessionCall {
    static let declaration = MethodDeclaration(
        "accountRecovery/cancel", "Cancels a grace period (state 2, reason 1).",
        description: "Cancels a grace period in progress (state 2, reason 1, cancelled by the user).",
        errors: [.userSessionInvalid, .accountRecoveryNotAllowed])
    static let result = AccountRecoveryFamily.recoveryResult
    static func call(_ core: Latchkey, sessionId: String) throws -> LatchkeyCore.AccountRecoveryStatus {
        try core.cancelAccountRecovery(sessionId: sessionId)
    }
}
