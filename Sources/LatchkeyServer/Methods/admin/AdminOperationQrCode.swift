import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum AdminOperationQrCode: RPCMethod {
    static let declaration = MethodDeclaration(
        "admin/operationQrCode", "The QR payload for approving an operation offline.",
        description: """
            Answers the text of a QR code: eight lines (LATCHKEY-QR-V1, the operation id, title, message, data, flags B when \
            touchId or faceId may approve, a nonce, and an ECDSA signature by the application's operation-signing key). The \
            phone checks it with the key it kept from its activation and shows a code the user types back \
            (admin/verifyOfflineOperation). A new nonce every call, replacing the one before for the same operation and phone. \
            registrationId: the phone (default: the bound one, else the user's only active registration of the application).
            """,
        errors: [.notFound, .operationNotPending, .authMethodNotAllowed] + CommonErrors.registrationState, access: .admin)
    struct Params: WireParams {
        let operationId: String
        let registrationId: String?
        static let wire = (operationId: WireMember.operationId, registrationId: WireMember.optional("registrationId", .identifier))
    }
    static let result = Codec.member("qrPayload", Codec<String>.text, "the QR code's text: eight lines joined by \\n")
    static func handle(_ params: Params, _ context: CallContext) throws -> String {
        try context.core.operationQRCode(operationId: params.operationId, registrationId: params.registrationId)
    }
}
