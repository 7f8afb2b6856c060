import LatchkeyCore
import LatchkeyRPC
import LatchkeyWire

/// `passkey/remove`: removes one of the signed-in user's passkeys.
enum PasskeyRemove: RPCMethod {
    static let declaration = MethodDeclaration(
        "passkey/remove", "Removes one of the signed-in user's passkeys.",
        description: """
            Removes a passkey of the signed-in user (by its id, the credential id) and answers the passkeys left. A \
            security notice goes out. Another user's passkey answers notFound, as an unknown one does.
            """,
        errors: [.userSessionInvalid, .notFound])
    struct Params: WireParams {
        let sessionId: String
        let passkeyId: String
        static let wire = (
            sessionId: WireMember.required("sessionId", .identifier), passkeyId: WireMember.required("passkeyId", .identifier, "the passkey's id")
        )
    }
    static let result = UserFamily.passkeyList
    static func handle(_ params: Params, _ context: CallContext) throws -> [Passkey] {
        try context.core.removePasskey(sessionId: params.sessionId, passkeyId: params.passkeyId)
    }
}
