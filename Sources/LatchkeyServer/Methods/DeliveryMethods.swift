import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeySimulator
import LatchkeyJSON
import LatchkeyRPC

/// The simulated email/SMS channel (closed by `--no-admin`).
enum DeliveryMethods {
    // Concrete types here, so each entry's decoding and encoding is specialised (no generic
    // metadata lookups per call).
    static let all: [MethodEntry] = [
        .init(List.self), .init(Open.self),
    ]

    enum List: RPCMethod {
        static let declaration = MethodDeclaration(
            "delivery/list", "Messages sent through the channel, newest last (the last 1000, in memory only).",
            description: """
            Lists the messages the simulated email/SMS channel has sent, newest last, optionally only those to one \
            address; each carries its one-time code and link, as the recipient would see them. Kept in process memory \
            only (the last 1000). An operator's tool.
            """,
            access: .adminLocal)
        struct Params: WireReadable {
            var to: String?
            static let fields: [WireField<Self>] = [.optional("to", \.to, .text, "only messages to this address")]
        }
        static let result = Codec.member("messages", .array(.object(OutboundMessage.self)))
        static func handle(_ params: Params, _ context: CallContext) throws -> [OutboundMessage] {
            context.server.outbox.list(to: params.to)
        }
    }

    enum Open: RPCMethod {
        static let declaration = MethodDeclaration(
            "delivery/open", "The user taps a message's link; an account-recovery link fires reset/accountRecoveryCallback.",
            description: """
            Acts as the recipient tapping a message's link and answers the link (null when the message has none). \
            Opening an account-recovery message fires the reset/accountRecoveryCallback notification with its \
            verification code.
            """,
            errors: [.notFound], access: .admin)
        struct Params: WireReadable {
            var messageId = ""
            static let fields: [WireField<Self>] = [.required("messageId", \.messageId, .identifier)]
        }
        static let result = Codec.member("link", .nullable(.text))
        static func handle(_ params: Params, _ context: CallContext) throws -> String? {
            try context.core.openMessage(params.messageId)
        }
    }
}
