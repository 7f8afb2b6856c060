import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum DeliveryOpen: RPCMethod {
    static let declaration = MethodDeclaration(
        "delivery/open", "The user taps a message's link; an account-recovery link fires reset/accountRecoveryCallback.",
        description: """
            Acts as the recipient tapping a message's link and answers the link (null when the message has none). \
            Opening an account-recovery message fires the reset/accountRecoveryCallback notification with its \
            verification code.
            """,
        errors: [.notFound], access: .adminProcess)
    struct Params: WireParams {
        let messageId: String
        static let wire = WireMember.required("messageId", .identifier)
    }
    static let result = Codec.member("link", .nullable(.text))
    static func handle(_ params: Params, _ context: CallContext) throws -> String? {
        try context.core.openMessage(params.messageId)
    }
}
