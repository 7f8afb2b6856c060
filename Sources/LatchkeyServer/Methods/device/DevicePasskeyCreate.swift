import LatchkeyCore
import LatchkeyRPC

/// `device/passkeyCreate`: the simulated phone's platform authenticator makes a passkey.
enum DevicePasskeyCreate: RPCMethod {
    static let declaration = MethodDeclaration(
        "device/passkeyCreate", "The simulated phone makes a passkey from creation options (navigator.credentials.create()).",
        description: """
            Does what a phone's browser and platform authenticator do with creation options as the server gave them: \
            checks the RP id against the origin (default: the first passkeyOrigins entry on the RP id), verifies the user \
            with the device's biometry, makes an ES256 (else EdDSA) discoverable credential — synced with iCloud Keychain \
            on, device-bound without — and answers the RegistrationResponseJSON (attestation none) for passkey/create.
            """,
        errors: [.notFound, .biometryFailed, .biometryCancelled, .alreadyExists])
    struct Params: WireReadable {
        var deviceId = ""
        var publicKey: CredentialCreationOptions?
        var origin: String?
        static let fields: [WireField<Self>] = [
            .deviceId(\.deviceId),
            .required(
                "publicKey", \.publicKey, Codec<CredentialCreationOptions>.creationOptions.stored, "the creation options, as the server gave them"),
            .optional("origin", \.origin, .identifier, "the page's origin (default: the first passkeyOrigins entry on the RP id)"),
        ]
    }
    static let result = Codec.member("credential", Codec<RegistrationResponse>.registrationResponse)
    static func handle(_ params: Params, _ context: CallContext) throws -> RegistrationResponse {
        let options = try readValue(params.publicKey, at: "publicKey")
        let origin = try SimulatedBrowser.origin(params.origin, rpId: options.rpId, core: context.core)
        return try context.devices.on(params.deviceId) { device in try SimulatedBrowser.create(options, origin: origin, on: device) }
    }
}
