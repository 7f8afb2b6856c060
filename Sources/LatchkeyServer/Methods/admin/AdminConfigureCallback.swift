import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum AdminConfigureCallback: RPCMethod {
    static let declaration = MethodDeclaration(
        "admin/configureCallback", "Creates a callback URL for event types, or replaces one.",
        description: """
            Configures a URL that hears of events of the listed types (registration.stateChanged, operation.statusChanged, \
            accountRecovery.stateChanged, onboarding.statusChanged) in one application: Latchkey POSTs each event, signed as the \
            Standard Webhooks specification says, and retries on a schedule. https://, or http:// to a loopback host; no user info; \
            a link-local, private or unspecified address is refused without --callback-allow-private. The secret (whsec_ and the \
            base64 of 24–64 bytes) is in this answer only: made when a new callback gives none; a replace (callbackId) without a \
            secret keeps the current one and answers secret null, applies to every later attempt and drops pending deliveries of \
            event types it no longer lists, and, given another applicationId, those of the application it leaves.
            """,
        errors: [.notFound], access: .admin)
    struct Params: WireParams {
        let url: String
        let events: [CallbackEventType]
        let callbackId: String?
        let secret: String?
        let applicationId: String?
        static let wire = (
            url: WireMember.required("url", .callbackURL), events: WireMember.required("events", .callbackEvents),
            callbackId: WireMember.optional("callbackId", .identifier, "replaces this callback"),
            secret: WireMember.optional("secret", .text, "whsec_ and the standard base64 of 24–64 bytes; default: made (new), kept (replace)"),
            applicationId: WireMember.applicationId
        )
    }
    typealias Result = ConfiguredCallback
    static func handle(_ params: Params, _ context: CallContext) throws -> ConfiguredCallback {
        ConfiguredCallback(
            callback: try context.core.configureCallback(
                NewCallback(
                    url: params.url, events: params.events, callbackId: params.callbackId, secret: params.secret,
                    applicationId: params.applicationId)))
    }
}
