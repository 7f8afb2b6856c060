import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

enum UserGet: SessionCall {
    static let declaration = MethodDeclaration(
        "user/get", "The signed-in user, with accountRecovery (null before the first start).",
        description: """
            Reads the signed-in user: uid, email, phone number and the account-recovery status (null before the first \
            accountRecovery/start).
            """,
        errors: [.userSessionInvalid])
    typealias Result = UserProfile
    static func call(_ core: Latchkey, sessionId: String) throws -> UserProfile { try core.profile(sessionId: sessionId) }
}
