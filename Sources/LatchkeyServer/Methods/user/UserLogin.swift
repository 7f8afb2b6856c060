import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

enum UserLogin: RPCMethod {
    static let declaration = MethodDeclaration(
        "user/login", "Signs in by email or userId; a new session cancels a grace period or insecure window (state 2, reason 2).",
        description: """
            Signs a user in with email or userId and password and answers a sessionId for the user/ and \
            accountRecovery/ methods. A new session cancels a grace period or insecure window in progress. Five failed \
            logins for one identifier within 15 minutes answer rateLimited.
            """,
        errors: [.invalidCredentials, .rateLimited])
    struct Params: WireReadable {
        var email: String?
        var userId: String?
        var password = ""
        static let fields: [WireField<Self>] = [
            .optional("email", \.email, .text), .optional("userId", \.userId, .text), .required("password", \.password, .text),
        ]
        static let oneIdentifier = WireRule<Self>.exactlyOne("email", \.email, "userId", \.userId)
        static let rules = [oneIdentifier]
        func identifier() throws -> UserIdentifier {
            try eitherOr(self, Self.oneIdentifier, email, UserIdentifier.email, userId, UserIdentifier.userId)
        }
    }
    struct Result: WireObject {
        var sessionId: String
        var uid: String
        static let fields: [WireField<Self>] = [.required("sessionId", \.sessionId, .text), .required("uid", \.uid, .text)]
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> Result {
        let session = try context.core.login(try params.identifier(), password: params.password)
        return Result(sessionId: session.sessionId, uid: session.uid)
    }
}
