import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum AdminPushAuthentication: RPCMethod {
    static let declaration = MethodDeclaration(
        "admin/pushAuthentication", "Pushes an authentication with a context; the next authentication/start picks it up.",
        description: """
            Pushes an authentication request with a context (title, content, MIME type) to a registration; the \
            device's next authentication/start picks it up and a two-factor authentication/finish approves it \
            (session/cancel rejects it). Poll it with admin/getAuthentication.
            """,
        errors: [.notFound], access: .admin)
    struct Params: WireParams {
        let registrationId: String
        let contextTitle: String?
        let contextContent: String?
        let contextMIME: String?
        let ttlSeconds: Int64
        static let wire = (
            registrationId: WireMember.registrationId, contextTitle: WireMember.optional("contextTitle", .text),
            contextContent: WireMember.optional("contextContent", .text), contextMIME: WireMember.optional("contextMIME", .text),
            ttlSeconds: WireMember.defaulted("ttlSeconds", .seconds(), default: 300)
        )

        /// The authentication to push, as the domain takes it.
        var push: NewPushedAuthentication {
            NewPushedAuthentication(
                registrationId: registrationId, contextTitle: contextTitle, contextContent: contextContent, contextMIME: contextMIME,
                ttlSeconds: ttlSeconds)
        }
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
