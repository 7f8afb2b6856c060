import LatchkeyCore
import LatchkeyRPC
import LatchkeyWire

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
    struct Params: WireParams {
        let ceremonyId: String
        let credential: AssertionResponse
        static let wire = (
            ceremonyId: WireMember.required("ceremonyId", .identifier, "from passkey/requestOptions"),
            credential: WireMember.required(
                "credential", Codec<AssertionResponse>.assertionResponse, "AuthenticationResponseJSON: credential.toJSON()")
        )
    }
    typealias Result = SignedIn
    static func handle(_ params: Params, _ context: CallContext) throws -> SignedIn {
        let session = try context.core.passkeyLogin(ceremonyId: params.ceremonyId, credential: params.credential)
        return SignedIn(sessionId: session.sessionId, uid: session.uid)
    }
}
