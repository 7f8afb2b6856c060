import LatchkeyCore
import LatchkeyRPC

/// `passkey/login`: signs in with the assertion an authenticator made from the request options.
enum PasskeyLogin: RPCMethod {
    static let declaration = MethodDeclaration(
        "passkey/login", "Signs in with a passkey assertion; a new session, exactly as user/login makes.",
        description: """
            Verifies an AuthenticationResponseJSON (credential.toJSON()) as a WebAuthn Relying Party — client data, the \
            registered passkey (of the named user when the options named one), the user handle, authenticator data, the \
            signature, the signature counter — and opens a session as user/login does (cancelling a grace period or an \
            insecure window in progress). A failed check answers passkeyInvalid with data.check; a counter that does not \
            grow is audited passkeyCloneSuspected. The ceremony is used up either way.
            """,
        errors: [.noSessionInProgress, .sessionExpired, .passkeyInvalid, .notFound])
    struct Params: WireReadable {
        var ceremonyId = ""
        var credential: AssertionResponse?
        static let fields: [WireField<Self>] = [
            .required("ceremonyId", \.ceremonyId, .identifier, "from passkey/requestOptions"),
            .required(
                "credential", \.credential, Codec<AssertionResponse>.assertionResponse.stored, "AuthenticationResponseJSON: credential.toJSON()"),
        ]
    }
    typealias Result = SignedIn
    static func handle(_ params: Params, _ context: CallContext) throws -> SignedIn {
        let session = try context.core.passkeyLogin(ceremonyId: params.ceremonyId, credential: try readValue(params.credential, at: "credential"))
        return SignedIn(sessionId: session.sessionId, uid: session.uid)
    }
}
