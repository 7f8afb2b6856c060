import Crypto
import LatchkeyContract

/// Fuzz entry points: the Relying Party's ceremonies over arbitrary bytes, with client data that
/// passes check 1 so the fuzzer reaches the CBOR, authenticator data, COSE and signature code.
/// Each takes any bytes and never traps.
extension RelyingParty {
    private static let fuzzSettings = RelyingPartySettings(
        rpId: "localhost", origins: ["https://localhost"],
        userVerification: .preferred)
    private static let fuzzChallenge = [UInt8](repeating: 0x42, count: 32)

    private static func fuzzClientData(_ type: CeremonyType) -> (CollectedClientData, [UInt8]) {
        let challenge = Base64URL.encode(fuzzChallenge)
        let json = "{\"type\":\"\(type.rawValue)\",\"challenge\":\"\(challenge)\",\"origin\":\"https://localhost\"}"
        return (
            CollectedClientData(type: type.rawValue, challenge: challenge, origin: "https://localhost", crossOrigin: nil),
            Array(json.utf8)
        )
    }

    /// The bytes as a registration's `attestationObject` (`rawId` taken from the attested
    /// credential data when there is one, so the checks after `credentialId` are reached).
    public static func fuzzRegistration(_ bytes: [UInt8]) {
        let (clientData, json) = fuzzClientData(.create)
        let rawId =
            (try? AttestationObject(bytes: bytes)).flatMap { try? AuthenticatorData(bytes: $0.authData) }?
            .attestedCredential?.credentialId ?? []
        let response = RegistrationResponse(rawId: rawId, clientData: clientData, clientDataJSON: json, attestationObject: bytes)
        _ = try? verifyRegistration(response, challenge: fuzzChallenge, settings: fuzzSettings)
    }

    /// A fixed ES256 passkey for `fuzzAssertion` (its private scalar is 1…1, public on purpose).
    private static let fuzzPasskey: PasskeyVerificationKey? = {
        guard let key = try? P256.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 1, count: 32)) else { return nil }
        return PasskeyVerificationKey(publicKey: COSEKey(key.publicKey).encoded, signCount: 0, userHandle: [1], backupEligible: nil)
    }()

    /// The bytes as an assertion: the first byte says how many of the rest are authenticator data
    /// (scaled: `first × 2`, at most what is there), the remainder is the signature.
    public static func fuzzAssertion(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        let rest = bytes.dropFirst()
        let split = rest.startIndex + min(Int(first) * 2, rest.count)
        let (clientData, json) = fuzzClientData(.get)
        let response = AssertionResponse(
            rawId: [1], clientData: clientData, clientDataJSON: json,
            authenticatorData: Array(rest[..<split]), signature: Array(rest[split...]), userHandle: nil)
        _ = try? verifyAssertion(response, challenge: fuzzChallenge, passkey: fuzzPasskey, settings: fuzzSettings)
    }
}
