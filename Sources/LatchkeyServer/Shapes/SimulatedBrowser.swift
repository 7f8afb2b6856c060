import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice

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
        guard let origin = try given ?? core.defaultPasskeyOrigin(rpId: rpId) else {
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
            PlatformCreationRequest(
                rpId: options.rpId, userHandle: options.user.id, algorithms: options.algorithms.map(Int64.init),
                excludeCredentials: options.excludeCredentials.map(\.id), clientDataJSON: clientData, userVerified: true, synced: true))
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
