import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

enum AccountRecoveryStart: SessionCall {
    static let declaration = MethodDeclaration(
        "accountRecovery/start", "Asks for a password reset: a grace period starts (from states 0, 2, 4).",
        description: """
            Asks for a password reset without the old password: a grace period starts (state 1, 72 h by default) and a \
            security notice goes out; when it ends unchallenged the insecure window opens (state 3). Allowed from \
            states none, cancelled and expired.
            """,
        errors: [.userSessionInvalid, .accountRecoveryNotAllowed])
    static let result = AccountRecoveryFamily.recoveryResult
    static func call(_ core: Latchkey, sessionId: String) throws -> LatchkeyCore.AccountRecoveryStatus {
        try core.startAccountRecovery(sessionId: sessionId)
    }
}
