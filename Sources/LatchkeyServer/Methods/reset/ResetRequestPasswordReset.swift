import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

enum ResetRequestPasswordReset: ResetFamily.CodeRequest {
    static let declaration = MethodDeclaration(
        "reset/requestPasswordReset", "Sends a password-reset code and link (same answer for unknown users).",
        description: """
            Sends a password-reset verification code (6 digits, 600 s) and link to the user's email or phone, built on \
            a redirectUrl that must start with one of the application's prefixes (and hold no space or control \
            character). Answers the same for unknown users; sends are rate limited.
            """,
        errors: [.notFound])
    static let kind = ResetKind.passwordReset
}
