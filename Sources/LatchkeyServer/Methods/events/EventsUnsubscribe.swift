import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

enum EventsUnsubscribe: RPCMethod {
    static let declaration = MethodDeclaration(
        "events/unsubscribe", "Stops notifications for topics; answers with the topics still subscribed.",
        description: """
            Removes topics from this connection's subscriptions and answers with the topics still subscribed. \
            Unsubscribing from a topic not subscribed is not an error.
            """,
        access: .localProcess)
    static func handle(_ params: EventsFamily.Topics, _ context: CallContext) throws -> EventsFamily.Topics {
        context.server.unsubscribe(params.topics)
        return EventsFamily.Topics(context.server.subscriptions)
    }
}
