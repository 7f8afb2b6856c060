import LatchkeyContract
import LatchkeyPlatformAuthenticator
import LatchkeyRelyingParty
import Testing

@testable import LatchkeyDevice

/// The fuzz entry points take any bytes: valid objects, every truncation, a bit flipped in every
/// byte (the low bit at even offsets, the high bit at odd ones).
@Suite struct PasskeyFuzzEntryTests {
    static func mutations(of bytes: [UInt8]) -> [[UInt8]] {
        var out = (0...bytes.count).map { Array(bytes.prefix($0)) }
        for index in bytes.indices {
            var flipped = bytes
            flipped[index] ^= index % 2 == 0 ? 0x01 : 0x80
            out.append(flipped)
        }
        return out
    }

    @Test("registration, assertion, CBOR, COSE and authenticator data entries survive mutations of valid input")
    func mutatedInputs() throws {
        let authenticator = PlatformAuthenticator(random: SeededRandomSource(seed: 8))
        let creation = try authenticator.create(
            PlatformCreationRequest(
                rpId: "localhost", userHandle: [1], algorithms: [-7], excludeCredentials: [],
                clientDataJSON: [], userVerified: true, synced: false), held: [], now: 0)
        let assertion = try authenticator.get(creation.credential, clientDataJSON: [], userVerified: true)
        let assertionInput = [UInt8(assertion.authenticatorData.count / 2)] + assertion.authenticatorData + assertion.signature
        for input in Self.mutations(of: creation.attestationObject) {
            RelyingParty.fuzzRegistration(input)
            AttestationObject.fuzz(input)
            CBORDecoder.fuzz(input)
        }
        for input in Self.mutations(of: assertionInput) { RelyingParty.fuzzAssertion(input) }
        for input in Self.mutations(of: creation.authenticatorData) { AuthenticatorData.fuzz(input) }
        for input in Self.mutations(of: creation.publicKey) { COSEKey.fuzz(input) }
        RelyingParty.fuzzAssertion([])
        RelyingParty.fuzzRegistration([])
    }
}
