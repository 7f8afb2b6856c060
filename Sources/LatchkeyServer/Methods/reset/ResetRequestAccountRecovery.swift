import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

enum ResetRequestAccountRecovery: ResetFamily.CodeRequest {
    static let declaration = MethodDeclaration(
        "reset/requestAccountRecovery", "Sends an account-recovery code and deep link (same answer for unknown users).",
        description: """
            Sends an account-recovery verification code (6 digits, 600 s) and deep link to the user's email or phone, \
            built on a redirectUrl that must start with one of the application's prefixes (and hold no space or control \
            character). Answers the same for unknown users; sends are rate limited. Opening the message fires \
            reset/accountRecoveryCallback.
            """,
        errors: [.notFound])
    static let kind = ResetKind.accountRecovery
}
