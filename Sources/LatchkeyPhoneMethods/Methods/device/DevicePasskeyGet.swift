import LatchkeyCore
import LatchkeyRPC
import LatchkeyServer
import LatchkeyWire

/// `device/passkeyGet`: the simulated phone's platform authenticator signs in with a passkey.
enum DevicePasskeyGet: RPCMethod {
    static let declaration = MethodDeclaration(
        "device/passkeyGet", "The simulated phone signs in with a passkey from request options (navigator.credentials.get()).",
        description: """
            Does what a phone's browser and platform authenticator do with request options: checks the RP id against the \
            origin, picks the first allowCredentials entry it holds (or, with an empty list, its newest passkey for the RP \
            id), verifies the user with the device's biometry and answers the AuthenticationResponseJSON for passkey/login.
            """,
        errors: [.notFound, .biometryFailed, .biometryCancelled])
    typealias Params = BrowserCeremonyParams<CredentialRequestOptions>
    static let result = Codec.member("credential", Codec<AssertionResponse>.assertionResponse)
    static func handle(_ params: Params, _ context: CallContext) throws -> AssertionResponse {
        try params.run(context, SimulatedBrowser.get)
    }
}
