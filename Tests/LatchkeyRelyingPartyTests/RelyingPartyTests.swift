import Crypto
import LatchkeyContract
import LatchkeyPlatformAuthenticator
import Testing
import _CryptoExtras

@testable import LatchkeyDevice
@testable import LatchkeyRelyingParty

/// The Relying Party's checks: registrations and assertions from the platform authenticator
/// (ES256, EdDSA) and a hand-built RS256 authenticator pass; one forged field per `data.check`
/// name fails that check, first.
@Suite struct RelyingPartyTests {
    let settings = RelyingPartySettings(
        rpId: "localhost", origins: ["https://localhost", "http://localhost:8080"],
        userVerification: .required)
    let challenge = [UInt8](repeating: 0xC4, count: 32)
    let userHandle = [UInt8](repeating: 0x11, count: 32)
    static let rsa = try? _RSA.Signing.PrivateKey(keySize: .bits2048)

    func clientData(
        _ type: String = "webauthn.create", challenge: [UInt8]? = nil, origin: String = "https://localhost",
        crossOrigin: Bool? = false
    ) -> (CollectedClientData, [UInt8]) {
        let text = Base64URL.encode(challenge ?? self.challenge)
        let parsed = CollectedClientData(type: type, challenge: text, origin: origin, crossOrigin: crossOrigin)
        let json = "{\"type\":\"\(type)\",\"challenge\":\"\(text)\",\"origin\":\"\(origin)\",\"crossOrigin\":\(crossOrigin ?? false)}"
        return (parsed, Array(json.utf8))
    }

    func creation(
        algorithms: [Int64] = [-7, -8, -257], rpId: String = "localhost", userVerified: Bool = true, synced: Bool = false,
        seed: UInt64 = 1
    ) throws -> PlatformCreation {
        let (_, json) = clientData()
        return try PlatformAuthenticator(random: SeededRandomSource(seed: seed)).create(
            PlatformCreationRequest(
                rpId: rpId, userHandle: userHandle, algorithms: algorithms, excludeCredentials: [],
                clientDataJSON: json, userVerified: userVerified, synced: synced), held: [], now: 0)
    }

    func registration(
        _ creation: PlatformCreation, attestationObject: [UInt8]? = nil, rawId: [UInt8]? = nil,
        clientData: (CollectedClientData, [UInt8])? = nil
    ) -> RegistrationResponse {
        let (parsed, json) = clientData ?? self.clientData()
        return RegistrationResponse(
            rawId: rawId ?? creation.credential.id, clientData: parsed, clientDataJSON: json,
            attestationObject: attestationObject ?? creation.attestationObject, transports: ["internal", "hybrid"])
    }

    /// The attestation object with its authenticator data changed.
    func reforged(
        _ creation: PlatformCreation, format: String = "none", statement: [CBORMapEntry] = [],
        _ change: (inout AuthenticatorData) -> Void = { _ in }
    ) throws -> [UInt8] {
        var data = try AuthenticatorData(bytes: creation.authenticatorData)
        change(&data)
        return AttestationObject(format: format, statement: statement, authData: data.encoded).encoded
    }

    func failedCheck(_ body: () throws(PasskeyCheckFailure) -> Void) -> PasskeyCheck? {
        do {
            try body()
            return nil
        } catch {
            return error.check
        }
    }

    func register(
        _ response: RegistrationResponse, offered: [COSEAlgorithm] = COSEAlgorithm.allCases,
        settings: RelyingPartySettings? = nil
    ) -> PasskeyCheck? {
        failedCheck { () throws(PasskeyCheckFailure) in
            _ = try RelyingParty.verifyRegistration(
                response, challenge: challenge, offeredAlgorithms: offered,
                settings: settings ?? self.settings)
        }
    }

    // MARK: round trips

    @Test(
        "ES256 and EdDSA, device-bound and synced: registration then assertions pass, counters as the authenticator keeps them",
        arguments: [(Int64(-7), false), (-7, true), (-8, false), (-8, true)])
    func platformRoundTrip(algorithm: Int64, synced: Bool) throws {
        let made = try creation(algorithms: [algorithm], synced: synced)
        let verified = try RelyingParty.verifyRegistration(registration(made), challenge: challenge, settings: settings)
        #expect(verified.algorithm.rawValue == algorithm)
        #expect(verified.credentialId == made.credential.id && verified.publicKey == made.publicKey)
        #expect(verified.backupEligible == synced && verified.backedUp == synced && verified.userVerified)
        #expect(verified.signCount == (synced ? 0 : 1))
        #expect(verified.aaguid == "00000000-0000-0000-0000-000000000000")
        #expect(verified.transports == ["internal", "hybrid"] && verified.attestationFormat == "none")

        var stored = PasskeyVerificationKey(publicKey: verified.publicKey, signCount: verified.signCount, userHandle: userHandle, backupEligible: nil)
        var credential = made.credential
        let authenticator = PlatformAuthenticator(random: SeededRandomSource(seed: 2))
        for round in 0..<3 {
            let (parsed, json) = clientData("webauthn.get")
            let assertion = try authenticator.get(credential, clientDataJSON: json, userVerified: true)
            credential = assertion.credential
            let response = AssertionResponse(
                rawId: credential.id, clientData: parsed, clientDataJSON: json,
                authenticatorData: assertion.authenticatorData, signature: assertion.signature,
                userHandle: round == 0 ? nil : assertion.userHandle)
            let result = try RelyingParty.verifyAssertion(response, challenge: challenge, passkey: stored, settings: settings)
            #expect(result.signCount == (synced ? 0 : UInt32(round + 2)))
            #expect(result.backupEligible == synced && result.backedUp == synced && result.userVerified)
            stored.signCount = result.signCount
        }
    }

    /// A hand-built RS256 credential: attestation object and an assertion signed with PKCS #1 v1.5.
    @Test("RS256: a hand-built registration and assertion pass")
    func rs256RoundTrip() throws {
        let privateKey = try #require(Self.rsa)
        let key = try COSEKey(privateKey.publicKey)
        let id = [UInt8](repeating: 0xAB, count: 16)
        let hash = Array(SHA256.hash(data: Array("localhost".utf8)))
        let authData = AuthenticatorData(
            rpIdHash: hash, flags: [.userPresent, .userVerified], signCount: 5,
            attestedCredential: AttestedCredentialData(aaguid: Array(1...16), credentialId: id, publicKey: key))
        let (parsed, json) = clientData()
        let response = RegistrationResponse(
            rawId: id, clientData: parsed, clientDataJSON: json,
            attestationObject: AttestationObject(format: "none", statement: [], authData: authData.encoded).encoded)
        let verified = try RelyingParty.verifyRegistration(response, challenge: challenge, settings: settings)
        #expect(verified.algorithm == .rs256 && verified.signCount == 5)
        #expect(verified.aaguid == "01020304-0506-0708-090a-0b0c0d0e0f10")

        let getData = AuthenticatorData(rpIdHash: hash, flags: [.userPresent, .userVerified], signCount: 6).encoded
        let (getParsed, getJSON) = clientData("webauthn.get")
        let signature = try privateKey.signature(
            for: RelyingParty.signedBytes(authData: getData, clientDataJSON: getJSON),
            padding: .insecurePKCS1v1_5)
        let assertion = AssertionResponse(
            rawId: id, clientData: getParsed, clientDataJSON: getJSON, authenticatorData: getData,
            signature: Array(signature.rawRepresentation), userHandle: userHandle)
        let stored = PasskeyVerificationKey(publicKey: verified.publicKey, signCount: 5, userHandle: userHandle, backupEligible: nil)
        #expect(try RelyingParty.verifyAssertion(assertion, challenge: challenge, passkey: stored, settings: settings).signCount == 6)
    }

    @Test("packed self-attestation: alg and sig with the credential's key pass; x5c, another alg, a bad sig, extra members fail")
    func packed() throws {
        let authenticatorKey = try P256.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 3, count: 32))
        let key = COSEKey(authenticatorKey.publicKey)
        let id = [UInt8](repeating: 0x5A, count: 32)
        let authData = AuthenticatorData(
            rpIdHash: Array(SHA256.hash(data: Array("localhost".utf8))), flags: [.userPresent, .userVerified],
            signCount: 0,
            attestedCredential: AttestedCredentialData(
                aaguid: Array(repeating: 0, count: 16),
                credentialId: id, publicKey: key)
        ).encoded
        let (parsed, json) = clientData()
        let sig = Array(try authenticatorKey.signature(for: RelyingParty.signedBytes(authData: authData, clientDataJSON: json)).derRepresentation)
        func response(_ statement: [CBORMapEntry]) -> RegistrationResponse {
            RegistrationResponse(
                rawId: id, clientData: parsed, clientDataJSON: json,
                attestationObject: AttestationObject(format: "packed", statement: statement, authData: authData).encoded)
        }
        let alg = CBORMapEntry(.text("alg"), .int(-7))
        let signature = CBORMapEntry(.text("sig"), .bytes(sig))
        #expect(register(response([alg, signature])) == nil)
        let verified = try RelyingParty.verifyRegistration(response([alg, signature]), challenge: challenge, settings: settings)
        #expect(verified.attestationFormat == "packed")
        #expect(register(response([alg, signature, CBORMapEntry(.text("x5c"), .array([.bytes([0x30, 0x00])]))])) == .attestation)
        #expect(register(response([CBORMapEntry(.text("alg"), .int(-8)), signature])) == .attestation)
        #expect(register(response([alg, CBORMapEntry(.text("sig"), .bytes(sig.dropLast() + [sig.last.map { $0 ^ 1 } ?? 0]))])) == .attestation)
        #expect(register(response([alg])) == .attestation)
        #expect(register(response([alg, signature, CBORMapEntry(.text("ecdaaKeyId"), .bytes([1]))])) == .attestation)
    }

    // MARK: one forged field per check, registration

    @Test("type: client data of the other ceremony, or with no type; client data the JSON layer could not read is encoding")
    func typeCheck() throws {
        let made = try creation()
        var response = registration(made)
        response.clientData = nil
        #expect(register(response) == .encoding)
        #expect(register(registration(made, clientData: clientData("webauthn.get"))) == .type)
        var noType = registration(made)
        noType.clientData?.type = nil
        #expect(register(noType) == .type)
    }

    @Test("challenge: another challenge, or one not in canonical base64url")
    func challengeCheck() throws {
        let made = try creation()
        #expect(register(registration(made, clientData: clientData(challenge: [1, 2, 3]))) == .challenge)
        var padded = registration(made)
        padded.clientData?.challenge = Base64URL.encode(challenge) + "="
        #expect(register(padded) == .challenge)
        padded.clientData?.challenge = nil
        #expect(register(padded) == .challenge)
    }

    @Test("origin: one not listed (scheme, host and port exact), or crossOrigin true")
    func originCheck() throws {
        let made = try creation()
        #expect(register(registration(made, clientData: clientData(origin: "https://evil.example"))) == .origin)
        #expect(register(registration(made, clientData: clientData(origin: "https://localhost:443"))) == .origin)
        #expect(register(registration(made, clientData: clientData(origin: "http://localhost"))) == .origin)
        #expect(register(registration(made, clientData: clientData(origin: "http://localhost:8080"))) == nil)
        #expect(register(registration(made, clientData: clientData(crossOrigin: true))) == .origin)
        #expect(register(registration(made, clientData: clientData(crossOrigin: nil))) == nil)
    }

    @Test("origin and type: compared byte for byte, not as canonically equivalent Unicode (a KELVIN SIGN is not a K)")
    func originBytes() throws {
        let android = "android:apk-key-hash:Kq1sE0-KxXzK8qK7T3b0Zg1qK2vFqKz9e0rT4yO6Wj8"
        let party = RelyingPartySettings(rpId: "localhost", origins: [android], userVerification: .required)
        let text = Base64URL.encode(challenge)
        func check(_ type: String, _ origin: String) -> PasskeyCheck? {
            let data = CollectedClientData(type: type, challenge: text, origin: origin, crossOrigin: nil)
            do {
                try RelyingParty.checkClientData(data, type: .create, challenge: challenge, settings: party)
                return nil
            } catch { return error.check }
        }
        let kelvin = String(android.map { $0 == "K" ? "\u{212A}" : $0 })
        #expect(kelvin == android)  // what String's == says
        #expect(check("webauthn.create", android) == nil)
        #expect(check("webauthn.create", kelvin) == .origin)
    }

    @Test("encoding: an attestation object that is not the three members, authData not what its flags say")
    func encodingCheck() throws {
        let made = try creation()
        #expect(register(registration(made, attestationObject: [0xA0])) == .encoding)
        #expect(register(registration(made, attestationObject: made.attestationObject + [0])) == .encoding)
        #expect(register(registration(made, attestationObject: [0xBF, 0xFF])) == .encoding)
        let object = try AttestationObject(bytes: made.attestationObject)
        let trailing = AttestationObject(format: "none", statement: [], authData: object.authData + [0x00]).encoded
        #expect(register(registration(made, attestationObject: trailing)) == .encoding)
        let short = AttestationObject(format: "none", statement: [], authData: Array(object.authData.prefix(36))).encoded
        #expect(register(registration(made, attestationObject: short)) == .encoding)
        // The client data's checks come first.
        #expect(register(registration(made, attestationObject: [0xA0], clientData: clientData(origin: "x"))) == .origin)
    }

    @Test("rpId: a credential made for another RP id")
    func rpIdCheck() throws {
        #expect(register(registration(try creation(rpId: "example.com"))) == .rpId)
    }

    @Test("userPresence: UP clear")
    func userPresenceCheck() throws {
        let made = try creation()
        #expect(register(registration(made, attestationObject: try reforged(made) { $0.flags.remove(.userPresent) })) == .userPresence)
    }

    @Test("userVerification: UV clear when required; accepted when preferred")
    func userVerificationCheck() throws {
        let made = try creation(userVerified: false)
        #expect(register(registration(made)) == .userVerification)
        var preferred = settings
        preferred.userVerification = .preferred
        #expect(register(registration(made), settings: preferred) == nil)
    }

    @Test("flags: BS without BE")
    func flagsCheck() throws {
        let made = try creation()
        #expect(register(registration(made, attestationObject: try reforged(made) { $0.flags.insert(.backedUp) })) == .flags)
        #expect(register(registration(made, attestationObject: try reforged(made) { $0.flags.insert(.backupEligible) })) == nil)
    }

    @Test("credentialId: rawId another id, no attested credential data, an id over 1023 bytes")
    func credentialIdCheck() throws {
        let made = try creation()
        #expect(register(registration(made, rawId: [1, 2, 3])) == .credentialId)
        let withoutAttested = try reforged(made) { $0 = AuthenticatorData(rpIdHash: $0.rpIdHash, flags: $0.flags, signCount: 1) }
        #expect(register(registration(made, attestationObject: withoutAttested)) == .credentialId)
        let long = [UInt8](repeating: 7, count: 1024)
        let forged = try reforged(made) { $0.attestedCredential?.credentialId = long }
        #expect(register(registration(made, attestationObject: forged, rawId: long)) == .credentialId)
        let longest = [UInt8](repeating: 7, count: 1023)
        #expect(
            register(
                registration(
                    made, attestationObject: try reforged(made) { $0.attestedCredential?.credentialId = longest },
                    rawId: longest)) == nil)
    }

    @Test("publicKey: a point off the curve, a kty that is not the algorithm's")
    func publicKeyCheck() throws {
        let made = try creation(algorithms: [-7])
        let forged = try reforged(made) { data in
            guard var key = data.attestedCredential?.publicKey.mapValue else { return }
            for index in key.indices where key[index].key == .int(-3) {
                if case .bytes(var y) = key[index].value {
                    y[31] ^= 1
                    key[index].value = .bytes(y)
                }
            }
            data.attestedCredential?.publicKey = .map(key)
            data.attestedCredential?.publicKeyBytes = CBOR.map(key).encoded
        }
        #expect(register(registration(made, attestationObject: forged)) == .publicKey)
        let wrongType = try reforged(made) { data in
            let key = CBOR.map([CBORMapEntry(.int(1), .int(1)), CBORMapEntry(.int(3), .int(-7))])
            data.attestedCredential?.publicKey = key
            data.attestedCredential?.publicKeyBytes = key.encoded
        }
        #expect(register(registration(made, attestationObject: wrongType)) == .publicKey)
    }

    @Test("algorithm: a key of an algorithm outside the three, or one the options did not offer")
    func algorithmCheck() throws {
        let made = try creation(algorithms: [-8])
        #expect(register(registration(made), offered: [.es256, .rs256]) == .algorithm)
        let es384 = try reforged(made) { data in
            let key = CBOR.map([CBORMapEntry(.int(1), .int(2)), CBORMapEntry(.int(3), .int(-35)), CBORMapEntry(.int(-1), .int(2))])
            data.attestedCredential?.publicKey = key
            data.attestedCredential?.publicKeyBytes = key.encoded
        }
        #expect(register(registration(made, attestationObject: es384)) == .algorithm)
    }

    @Test("attestation: another format, a none statement that is not empty")
    func attestationCheck() throws {
        let made = try creation()
        #expect(register(registration(made, attestationObject: try reforged(made, format: "fido-u2f"))) == .attestation)
        #expect(
            register(
                registration(
                    made,
                    attestationObject: try reforged(
                        made, format: "none",
                        statement: [CBORMapEntry(.text("alg"), .int(-7))]))) == .attestation)
    }

    // MARK: one forged field per check, assertion

    struct Signed {
        var response: AssertionResponse
        var stored: PasskeyVerificationKey
        var credential: PlatformCredential
    }

    func signed(synced: Bool = false, userVerified: Bool = true, _ change: ((inout AuthenticatorData) -> Void)? = nil) throws -> Signed {
        let made = try creation(synced: synced)
        let (parsed, json) = clientData("webauthn.get")
        let assertion = try PlatformAuthenticator(random: SeededRandomSource(seed: 4)).get(
            made.credential, clientDataJSON: json,
            userVerified: userVerified)
        var authData = assertion.authenticatorData
        if let change {
            var data = try AuthenticatorData(bytes: authData)
            change(&data)
            authData = data.encoded
        }
        return Signed(
            response: AssertionResponse(
                rawId: made.credential.id, clientData: parsed, clientDataJSON: json,
                authenticatorData: authData, signature: assertion.signature, userHandle: userHandle),
            stored: PasskeyVerificationKey(
                publicKey: made.publicKey, signCount: made.credential.signCount, userHandle: userHandle, backupEligible: nil),
            credential: assertion.credential)
    }

    func assertionCheck(
        _ signed: Signed, passkey: PasskeyVerificationKey?? = nil, discoverable: Bool = false, settings: RelyingPartySettings? = nil
    ) -> PasskeyCheck? {
        failedCheck { () throws(PasskeyCheckFailure) in
            _ = try RelyingParty.verifyAssertion(
                signed.response, challenge: challenge, passkey: passkey ?? signed.stored, requireUserHandle: discoverable,
                settings: settings ?? self.settings)
        }
    }
}
