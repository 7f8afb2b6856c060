import LatchkeyCore
import LatchkeyJSON

/// The simulated email/SMS channel (closed by `--no-admin`).
enum DeliveryMethods {
    static let all: [MethodSpec] = [
        MethodSpec("delivery/list", "Messages sent through the channel, newest last (the last 1000, in memory only).",
                   params: [.optional("to", .text, "only messages to this address")],
                   result: .object([Field("messages", .array(CommonSchemas.message))]), adminOnly: true) { params, context in
            ["messages": .array(context.core.outbox.list(to: params.optionalString("to")).map(Notifications.messageJSON))]
        },
        MethodSpec("delivery/open", "The user taps a message's link; an account-recovery link fires reset/accountRecoveryCallback.",
                   params: [Field("messageId", .string(minLength: 1))], result: .object([Field("link", .nullable(.text))]),
                   errors: [.notFound], adminOnly: true) { params, context in
            ["link": .string(orNull: try context.core.openMessage(params.string("messageId")))]
        },
    ]
}
