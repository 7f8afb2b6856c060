import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

enum AdminPushAuthentication: RPCMethod {
    static let declaration = MethodDeclaration(
        "admin/pushAuthentication", "Pushes an authentication with a context; the next authentication/start picks it up.",
        description: """
            Pushes an authentication request with a context (title, content, MIME type) to a registration; the \
            device's next authentication/start picks it up and a two-factor authentication/finish approves it \
            (session/cancel rejects it). Poll it with admin/getAuthentication.
            """,
        errors: [.notFound], access: .admin)
    struct Params: WireReadable {
        var push = NewPushedAuthentication()
        static let fields: [WireField<Self>] = [
            .registrationId(\.push.registrationId),
            .optional("contextTitle", \.push.contextTitle, .text),
            .optional("contextContent", \.push.contextContent, .text),
            .optional("contextMIME", \.push.contextMIME, .text),
            .defaulted("ttlSeconds", \.push.ttlSeconds, .seconds(), default: 300),
        ]
    }
    struct Result: WireObject {
        var authenticationId: String
        var expiresAt: UnixTime
        static let fields: [WireField<Self>] = [
            .required("authenticationId", \.authenticationId, .text), .required("expiresAt", \.expiresAt, .time),
        ]
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> Result {
        let pushed = try context.core.pushAuthentication(params.push)
        return Result(authenticationId: pushed.authenticationId, expiresAt: pushed.expiresAt)
    }
}
