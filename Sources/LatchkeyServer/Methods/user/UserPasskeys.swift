import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeySimulator
import LatchkeyJSON
import LatchkeyRPC

enum UserPasskeys: SessionCall {
    static let declaration = MethodDeclaration("user/passkeys", "The signed-in user's passkeys.",
        description: """
        Lists the signed-in user's passkeys (id, friendly name, creation time).
        """,
        errors: [.userSessionInvalid])
    static let result = UserFamily.passkeyList
    static func call(_ core: Latchkey, sessionId: String) throws -> [Passkey] { try core.passkeys(sessionId: sessionId) }
}
