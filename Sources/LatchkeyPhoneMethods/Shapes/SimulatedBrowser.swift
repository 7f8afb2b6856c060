import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeyJSON
import LatchkeyPlatformAuthenticator
import LatchkeyRPC
import LatchkeyServer
import LatchkeyWire

/// The browser half of the simulated phone's passkeys: it picks the origin a ceremony runs on,
/// checks the options' RP id against it, writes the client data (JSON, so here and not in the
/// device half) and hands the rest to the phone's platform authenticator.
enum SimulatedBrowser {
    /// The origin: the one given, else the first `passkeyOrigins` entry whose host is the RP id (the `default` application's first, then the
    /// others').
    ///
    /// The RP id must be its host or a parent of it (an Android app's origin is checked by the platform, not here).
    /// - Throws: `invalidParams` naming `origin`.
    static func origin(_ given: String?, rpId: String, core: Latchkey) throws -> String {
        try origin(given, rpId: rpId) { try core.defaultPasskeyOrigin(rpId: $0) }
    }

    /// The origin, the default found by `defaultOrigin` (in a transaction already open).
    static func origin(_ given: String?, rpId: String, defaultOrigin: (String) throws -> String?) throws -> String {
        guard let origin = try given ?? defaultOrigin(rpId) else {
            throw DomainError.invalid(.browserOrigin, "is required: no application has a passkey origin on the options' RP id")
        }
        if ApplicationRelyingParty.isAndroidOrigin(origin) { return origin }
        guard WebOrigin.rpId(rpId, coversOrigin: origin) else {
            throw DomainError.invalid(.browserOrigin, "must be an origin whose host is the options' RP id or a subdomain of it")
        }
        return origin
    }

    /// `navigator.credentials.create()` on the phone.
    static func create(_ options: CredentialCreationOptions, origin: String, on device: Device) throws -> RegistrationResponse {
        let clientData = clientDataJSON(type: "webauthn.create", challenge: options.challenge, origin: origin)
        let creation = try device.createPasskey(
            rpId: options.rpId, userHandle: options.user.id, algorithms: options.algorithms.map(Int64.init),
            excludeCredentials: options.excludeCredentials.map(\.id), clientDataJSON: clientData)
        return RegistrationResponse(
            rawId: creation.credential.id, clientData: collectedClientData(clientData), clientDataJSON: clientData,
            attestationObject: creation.attestationObject, transports: PlatformTransports.simulatedPhone)
    }

    /// `navigator.credentials.get()` on the phone.
    static func get(_ options: CredentialRequestOptions, origin: String, on device: Device) throws -> AssertionResponse {
        let clientData = clientDataJSON(type: "webauthn.get", challenge: options.challenge, origin: origin)
        let assertion = try device.assertPasskey(
            rpId: options.rpId, allowCredentials: options.allowCredentials.map(\.id),
            clientDataJSON: clientData)
        return AssertionResponse(
            rawId: assertion.credential.id, clientData: collectedClientData(clientData), clientDataJSON: clientData,
            authenticatorData: assertion.authenticatorData, signature: assertion.signature,
            userHandle: assertion.userHandle)
    }
}

/// The client data a browser writes for a ceremony:
/// `{"type", "challenge", "origin", "crossOrigin": false}`, in that order.
func clientDataJSON(type: String, challenge: [UInt8], origin: String) -> [UInt8] {
    JSONSerializer.serialize(
        .object(
            JSONObject([
                ("type", .string(type)), ("challenge", .string(Base64URL.encode(challenge))), ("origin", .string(origin)),
                ("crossOrigin", false),
            ])))
}

/// Options a page hands the browser (`navigator.credentials.create()` or `get()`), as the simulated
/// phone's browser half reads them.
protocol BrowserOptions: Sendable {
    /// Their JSON form.
    static var codec: Codec<Self> { get }
    /// What the `publicKey` param holds.
    static var summary: String { get }
    /// The RP id the origin must be on.
    var rpId: String { get }
}

extension CredentialCreationOptions: BrowserOptions {
    static var codec: Codec<Self> { .creationOptions }
    static var summary: String { "the creation options, as the server gave them" }
}

extension CredentialRequestOptions: BrowserOptions {
    static var codec: Codec<Self> { .requestOptions }
    static var summary: String { "the request options, as the server gave them" }
}

/// `{deviceId, publicKey, origin*}`: a ceremony on a simulated phone, the options as the server gave them.
struct BrowserCeremonyParams<Options: BrowserOptions>: WireParams {
    let deviceId: String
    let publicKey: Options
    let origin: String?
    // Computed: a generic type has no static stored properties.
    static var wire: (deviceId: WireMember<String>, publicKey: WireMember<Options>, origin: WireMember<String?>) {
        (
            deviceId: .deviceId, publicKey: .required("publicKey", Options.codec, Options.summary),
            origin: .optional("origin", .identifier, "the page's origin (default: the first passkeyOrigins entry on the RP id)")
        )
    }

    /// Runs `ceremony` on the device with the options and the origin checked against their RP id.
    func run<Result>(_ context: CallContext, _ ceremony: (Options, String, Device) throws -> Result) throws -> Result {
        let origin = try SimulatedBrowser.origin(self.origin, rpId: publicKey.rpId, core: context.core)
        return try context.devices.on(deviceId) { device in try ceremony(publicKey, origin, device) }
    }
}
