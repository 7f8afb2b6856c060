import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

/// The simulated email/SMS channel (closed by `--no-admin`).
enum DeliveryMethods {
    static let all: [any RPCMethod.Type] = [List.self, Open.self]

    enum List: RPCMethod {
        static let name = "delivery/list"
        static let summary = "Messages sent through the channel, newest last (the last 1000, in memory only)."
        static let access = MethodAccess.adminLocal
        struct Params: WireReadable {
            var to: String?
            static let fields: [WireField<Self>] = [.optional("to", \.to, .text, "only messages to this address")]
        }
        struct Result: WireObject {
            var messages: [OutboundMessage]
            static let fields: [WireField<Self>] = [.required("messages", \.messages, .array(.object(OutboundMessage.self)))]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> Result {
            Result(messages: context.server.outbox.list(to: params.to))
        }
    }

    enum Open: RPCMethod {
        static let name = "delivery/open"
        static let summary = "The user taps a message's link; an account-recovery link fires reset/accountRecoveryCallback."
        static let errors: [ErrorReason] = [.notFound]
        static let access = MethodAccess.admin
        struct Params: WireReadable {
            var messageId = ""
            static let fields: [WireField<Self>] = [.required("messageId", \.messageId, .identifier)]
        }
        struct Result: WireObject {
            var link: String?
            static let fields: [WireField<Self>] = [.nullable("link", \.link, .text)]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> Result {
            Result(link: try context.core.openMessage(params.messageId))
        }
    }
}
