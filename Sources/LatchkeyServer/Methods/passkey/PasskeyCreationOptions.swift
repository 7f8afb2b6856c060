import LatchkeyCore
import LatchkeyRPC
import LatchkeyWire

/// `passkey/creationOptions`: options for `navigator.credentials.create()` to add a passkey.
enum PasskeyCreationOptions: RPCMethod {
    static let declaration = MethodDeclaration(
        "passkey/creationOptions", "Options to add a passkey to the signed-in user (a WebAuthn registration ceremony).",
        description: """
            Opens a WebAuthn registration ceremony for the signed-in user and answers its ceremonyId and publicKey, \
            a PublicKeyCredentialCreationOptionsJSON (what PublicKeyCredential.parseCreationOptionsFromJSON takes): the \
            application's RP, the user's random handle, a fresh challenge, ES256/EdDSA/RS256, the user's passkeys \
            excluded, a discoverable credential required. The ceremony is valid 300 s and serves one passkey/create.
            """,
        errors: [.userSessionInvalid, .notFound, .policyViolation])
    struct Params: WireParams {
        let sessionId: String
        let applicationId: String?
        static let wire = (sessionId: WireMember.required("sessionId", .identifier), applicationId: WireMember.applicationId)
    }
    typealias Result = CreationCeremony
    static func handle(_ params: Params, _ context: CallContext) throws -> CreationCeremony {
        CreationCeremony(options: try context.core.passkeyCreationOptions(sessionId: params.sessionId, applicationId: params.applicationId))
    }
}
