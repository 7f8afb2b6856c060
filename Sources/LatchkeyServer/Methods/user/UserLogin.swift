import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum UserLogin: RPCMethod {
    static let declaration = MethodDeclaration(
        "user/login", "Signs in by email or userId; a new session cancels a grace period or insecure window (state 2, reason 2).",
        description: """
            Signs a user in with email or userId and password and answers a sessionId for the user/ and \
            accountRecovery/ methods. A new session cancels a grace period or insecure window in progress. Five failed \
            logins for one identifier within 15 minutes answer rateLimited.
            """,
        errors: [.invalidCredentials, .rateLimited])
    struct Params: WireParams {
        let email: String?
        let userId: String?
        let password: String
        static let wire = (
            email: WireMember.optional("email", .text), userId: WireMember.optional("userId", .text), password: WireMember.required("password", .text)
        )
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
