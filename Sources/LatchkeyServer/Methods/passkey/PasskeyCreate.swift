import LatchkeyCore
import LatchkeyRPC
import LatchkeyWire

/// `passkey/create`: registers the credential an authenticator made from the creation options.
enum PasskeyCreate: RPCMethod {
    static let declaration = MethodDeclaration(
        "passkey/create", "Registers the passkey an authenticator made from passkey/creationOptions.",
        description: """
            Verifies a RegistrationResponseJSON (credential.toJSON()) as a WebAuthn Relying Party — client data, \
            attestation object, authenticator data, the COSE key, attestation none or packed self-attestation — and keeps \
            the passkey's public key. A failed check answers passkeyInvalid with data.check; the ceremony is used up either \
            way. A security notice goes out.
            """,
        errors: [.noSessionInProgress, .sessionExpired, .policyViolation, .passkeyInvalid, .alreadyExists, .notFound])
    struct Params: WireParams {
        let ceremonyId: String
        let credential: RegistrationResponse
        let friendlyName: String?
        static let wire = (
            ceremonyId: WireMember.required("ceremonyId", .identifier, "from passkey/creationOptions"),
            credential: WireMember.required(
                "credential", Codec<RegistrationResponse>.registrationResponse, "RegistrationResponseJSON: credential.toJSON()"),
            friendlyName: WireMember.optional("friendlyName", .string(minLength: 1, maxLength: 64), "defaults to Passkey")
        )
    }
    static let result = Codec.member("passkey", .object(Passkey.self))
    static func handle(_ params: Params, _ context: CallContext) throws -> Passkey {
        try context.core.createPasskey(
            ceremonyId: params.ceremonyId, credential: params.credential,
            friendlyName: params.friendlyName)
    }
}
