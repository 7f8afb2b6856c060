import LatchkeyCore
import LatchkeyRPC
import LatchkeyServer
import LatchkeyWire

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
    typealias Params = BrowserCeremonyParams<CredentialCreationOptions>
    static let result = Codec.member("credential", Codec<RegistrationResponse>.registrationResponse)
    static func handle(_ params: Params, _ context: CallContext) throws -> RegistrationResponse {
        try params.run(context, SimulatedBrowser.create)
    }
}
