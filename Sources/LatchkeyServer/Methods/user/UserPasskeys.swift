import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

enum UserPasskeys: SessionCall {
    static let declaration = MethodDeclaration(
        "user/passkeys", "The signed-in user's passkeys.",
        description: """
            Lists the signed-in user's passkeys, oldest first: id (the credential id), friendly name, creation and last \
            use, COSE algorithm, backup eligibility and state, transports and AAGUID.
            """,
        errors: [.userSessionInvalid])
    static let result = UserFamily.passkeyList
    static func call(_ core: Latchkey, sessionId: String) throws -> [Passkey] { try core.passkeys(sessionId: sessionId) }
}
