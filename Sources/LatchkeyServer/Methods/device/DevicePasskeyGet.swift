import LatchkeyCore
import LatchkeyRPC

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
    struct Params: WireReadable {
        var deviceId = ""
        var publicKey: CredentialRequestOptions?
        var origin: String?
        static let fields: [WireField<Self>] = [
            .deviceId(\.deviceId),
            .required(
                "publicKey", \.publicKey, Codec<CredentialRequestOptions>.requestOptions.stored, "the request options, as the server gave them"),
            .optional("origin", \.origin, .identifier, "the page's origin (default: the first passkeyOrigins entry on the RP id)"),
        ]
    }
    static let result = Codec.member("credential", Codec<AssertionResponse>.assertionResponse)
    static func handle(_ params: Params, _ context: CallContext) throws -> AssertionResponse {
        let options = try readValue(params.publicKey, at: "publicKey")
        let origin = try SimulatedBrowser.origin(params.origin, rpId: options.rpId, core: context.core)
        return try context.devices.on(params.deviceId) { device in try SimulatedBrowser.get(options, origin: origin, on: device) }
    }
}
