import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum DeliveryList: RPCMethod {
    static let declaration = MethodDeclaration(
        "delivery/list", "Messages sent through the channel, newest last (the last 1000, in memory only).",
        description: """
            Lists the messages the simulated email/SMS channel has sent, newest last, optionally only those to one \
            address; each carries its one-time code and link, as the recipient would see them. Kept in process memory \
            only (the last 1000). An operator's tool.
            """,
        access: .adminLocal)
    struct Params: WireParams {
        let to: String?
        static let wire = WireMember.optional(
            "to", .address, "only messages to this address (an email, compared case-insensitively, or an E.164 number)")
    }
    static let result = Codec.member("messages", .array(.object(OutboundMessage.self)))
    static func handle(_ params: Params, _ context: CallContext) throws -> [OutboundMessage] {
        context.server.sentMessages.list(to: params.to)
    }
}
