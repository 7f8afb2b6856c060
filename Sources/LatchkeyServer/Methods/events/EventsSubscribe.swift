import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

enum EventsSubscribe: RPCMethod {
    static let declaration = MethodDeclaration(
        "events/subscribe", "Starts notifications for topics; answers with every topic subscribed.",
        description: """
            Adds topics (delivery, accountRecovery, accountRecoveryCallback, operations, audit) to this connection's \
            subscriptions; from then on the matching notifications are sent before the response of the call that \
            caused them. The delivery and audit topics are closed by --no-admin.
            """,
        errors: [.forbidden], access: .localProcess)
    static func handle(_ params: EventsFamily.Topics, _ context: CallContext) throws -> EventsFamily.Topics {
        if context.options.noAdmin, let closed = params.topics.first(where: \.isAdminOnly) {
            throw DomainError(.forbidden, "the \(closed.rawValue) topic is closed by --no-admin")
        }
        context.server.subscribe(params.topics)
        return EventsFamily.Topics(context.server.subscriptions)
    }
}
