import Crypto
import LatchkeyContract

/// What `navigator.credentials.create()` returned, as the JSON layer read it
/// (`RegistrationResponseJSON`, byte strings decoded).
public struct RegistrationResponse: Sendable, Equatable {
    public var rawId: [UInt8]
    /// `clientDataJSON` parsed by the JSON layer; nil when it is not a JSON object.
    public var clientData: CollectedClientData?
    public var clientDataJSON: [UInt8]
    public var attestationObject: [UInt8]
    /// `response.transports`, passed through to the passkey.
    public var transports: [String]

    public init(
        rawId: [UInt8], clientData: CollectedClientData?, clientDataJSON: [UInt8], attestationObject: [UInt8],
        transports: [String] = []
    ) {
        self.rawId = rawId
        self.clientData = clientData
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
        self.transports = transports
    }
}

/// A registration that passed every check: what the store keeps of the new passkey.
public struct VerifiedRegistration: Sendable, Equatable {
    public var credentialId: [UInt8]
    /// The canonical COSE key.
    public var publicKey: [UInt8]
    public var algorithm: COSEAlgorithm
    public var signCount: UInt32
    public var backupEligible: Bool
    public var backedUp: Bool
    public var userVerified: Bool
    /// The AAGUID as a lower-case UUID string (all zeros when the authenticator sends none).
    public var aaguid: String
    public var transports: [String]
    /// `none` or `packed`.
    public var attestationFormat: String
}

/// What `navigator.credentials.get()` returned, as the JSON layer read it
/// (`AuthenticationResponseJSON`, byte strings decoded).
public struct AssertionResponse: Sendable, Equatable {
    public var rawId: [UInt8]
    public var clientData: CollectedClientData?
    public var clientDataJSON: [UInt8]
    public var authenticatorData: [UInt8]
    public var signature: [UInt8]
    public var userHandle: [UInt8]?

    public init(
        rawId: [UInt8], clientData: CollectedClientData?, clientDataJSON: [UInt8], authenticatorData: [UInt8],
        signature: [UInt8], userHandle: [UInt8]?
    ) {
        self.rawId = rawId
        self.clientData = clientData
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }
}

/// The registered passkey an assertion names, as the caller found it by `rawId`.
public struct PasskeyVerificationKey: Sendable, Equatable {
    /// The canonical COSE key stored at registration.
    public var publicKey: [UInt8]
    public var signCount: UInt32
    /// The handle of the passkey's user.
    public var userHandle: [UInt8]
    /// The backup eligibility the passkey was registered with (nil: not known yet, an imported
    /// passkey given none, which its first successful sign-in sets).
    public var backupEligible: Bool?

    public init(publicKey: [UInt8], signCount: UInt32, userHandle: [UInt8], backupEligible: Bool?) {
        self.publicKey = publicKey
        self.signCount = signCount
        self.userHandle = userHandle
        self.backupEligible = backupEligible
    }
}

/// An assertion that passed every check: what the store updates.
public struct VerifiedAssertion: Sendable, Equatable {
    public var signCount: UInt32
    public var backupEligible: Bool
    public var backedUp: Bool
    public var userVerified: Bool
}

/// The Relying Party's checks (WebAuthn Level 3 §7.1, §7.2) as pure steps in the contract's order, each failure a `PasskeyCheckFailure` naming its
/// check.
///
/// Store-free: the caller finds the ceremony and the passkey, and checks what only the store knows (a
/// credential id registered already → `alreadyExists`).
public enum RelyingParty {
    /// Stored passkey keys as the verifier takes them, read once per key.
    static let parsedKeys = PasskeyKeys()

    /// Check 1: the client data's `type`, `challenge` (unpadded base64url of the ceremony's
    /// bytes) and `origin` (one of the settings' exactly, `crossOrigin` not true).
    /// - Throws: `encoding` (nil client data: bytes that are not one JSON object; a member of the wrong JSON type), `type`,
    ///   `challenge`, `origin`.
    public static func checkClientData(
        _ clientData: CollectedClientData?, type: CeremonyType, challenge: [UInt8],
        settings: RelyingPartySettings
    ) throws(PasskeyCheckFailure) {
        // Malformed bytes are `encoding`, as everywhere in the checks (CBOR, authData, a mistyped member).
        guard let clientData else { throw PasskeyCheckFailure(.encoding, "clientDataJSON is not a JSON object") }
        if let member = clientData.mistyped {
            throw PasskeyCheckFailure(.encoding, "the client data's \(member) is not of its JSON type")
        }
        guard let actual = clientData.type else { throw PasskeyCheckFailure(.type, "clientDataJSON is not a JSON object with a type") }
        // Text from the client compared byte for byte: `String`'s == is Unicode canonical equivalence (a KELVIN SIGN equals "K").
        guard actual.utf8.elementsEqual(type.rawValue.utf8) else {
            throw PasskeyCheckFailure(.type, "the client data's type is not \(type.rawValue)")
        }
        guard let text = clientData.challenge, let bytes = Base64URL.decode(text), bytes == challenge else {
            throw PasskeyCheckFailure(.challenge, "the client data's challenge is not the ceremony's")
        }
        guard let origin = clientData.origin, settings.origins.contains(where: { $0.utf8.elementsEqual(origin.utf8) }) else {
            throw PasskeyCheckFailure(.origin, "the client data's origin is not one of the application's")
        }
        guard clientData.crossOrigin != true else { throw PasskeyCheckFailure(.origin, "the client data is cross-origin") }
    }

    /// Check 3: reads authenticator data and checks the RP id hash, UP, UV by policy and BE/BS.
    /// - Throws: `encoding`, `rpId`, `userPresence`, `userVerification`, `flags`.
    public static func checkAuthenticatorData(
        _ bytes: [UInt8], settings: RelyingPartySettings
    ) throws(PasskeyCheckFailure)
        -> AuthenticatorData
    {
        let data: AuthenticatorData
        do { data = try AuthenticatorData(bytes: bytes) } catch {
            throw PasskeyCheckFailure(.encoding, "authData is not what its flags announce (\(error))")
        }
        guard data.rpIdHash == settings.rpIdHash else {
            throw PasskeyCheckFailure(.rpId, "authData's RP id hash is not the application's")
        }
        guard data.flags.contains(.userPresent) else { throw PasskeyCheckFailure(.userPresence, "UP is clear") }
        if settings.userVerification == .required, !data.flags.contains(.userVerified) {
            throw PasskeyCheckFailure(.userVerification, "UV is clear and the application requires user verification")
        }
        if data.flags.contains(.backedUp), !data.flags.contains(.backupEligible) {
            throw PasskeyCheckFailure(.flags, "BS is set without BE")
        }
        return data
    }

    /// Check 2 of an assertion, after the caller's lookup: `userHandle` is the passkey's user's —
    /// required when the options named no user (a discoverable sign-in, WebAuthn L3 §7.2 step 6),
    /// checked when given.
    /// - Throws: `userHandle`.
    public static func checkUserHandle(_ given: [UInt8]?, passkeyUserHandle: [UInt8], required: Bool) throws(PasskeyCheckFailure) {
        guard let given else {
            if required { throw PasskeyCheckFailure(.userHandle, "a discoverable sign-in needs userHandle") }
            return
        }
        guard given == passkeyUserHandle else { throw PasskeyCheckFailure(.userHandle, "userHandle is not the passkey's user's") }
    }

    /// Check 3's rule for an assertion: BE is what the passkey was registered with (WebAuthn L3
    /// §7.2: backup eligibility never changes); nil — not known yet — accepts either.
    /// - Throws: `flags`.
    public static func checkBackupEligibility(_ data: AuthenticatorData, stored: Bool?) throws(PasskeyCheckFailure) {
        if let stored, data.flags.contains(.backupEligible) != stored {
            throw PasskeyCheckFailure(.flags, "BE is not what the passkey was registered with")
        }
    }

    /// Verifies a registration: client data, attestation object, authenticator data, attested
    /// credential data, the COSE key (one of `offeredAlgorithms`) and the attestation statement
    /// (`none` with an empty statement, or `packed` self-attestation).
    /// - Throws: the first failing check: `type`, `challenge`, `origin`, `encoding`, `rpId`,
    ///   `userPresence`, `userVerification`, `flags`, `credentialId`, `algorithm`, `publicKey`,
    ///   `attestation`.
    public static func verifyRegistration(
        _ response: RegistrationResponse, challenge: [UInt8],
        offeredAlgorithms: [COSEAlgorithm] = COSEAlgorithm.allCases,
        settings: RelyingPartySettings
    ) throws(PasskeyCheckFailure) -> VerifiedRegistration {
        try checkClientData(response.clientData, type: .create, challenge: challenge, settings: settings)
        let object: AttestationObject
        do { object = try AttestationObject(bytes: response.attestationObject) } catch {
            throw PasskeyCheckFailure(.encoding, "attestationObject is not a CBOR map of fmt, attStmt and authData (\(error))")
        }
        let data = try checkAuthenticatorData(object.authData, settings: settings)
        guard let attested = data.attestedCredential else {
            throw PasskeyCheckFailure(.credentialId, "authData holds no attested credential data")
        }
        guard attested.credentialId.count <= AuthenticatorData.maximumCredentialIdLength else {
            throw PasskeyCheckFailure(.credentialId, "the credential id is longer than 1023 bytes")
        }
        guard attested.credentialId == response.rawId else {
            throw PasskeyCheckFailure(.credentialId, "the attested credential id is not rawId")
        }
        let key: COSEKey
        do { key = try COSEKey(cbor: attested.publicKey) } catch {
            switch error {
            case .unsupportedAlgorithm: throw PasskeyCheckFailure(.algorithm, "the key's algorithm is not ES256, EdDSA or RS256")
            case .malformed(let why): throw PasskeyCheckFailure(.publicKey, "the credential public key is malformed: \(why)")
            }
        }
        guard offeredAlgorithms.contains(key.algorithm) else {
            throw PasskeyCheckFailure(.algorithm, "the key's algorithm was not offered")
        }
        try checkAttestation(object, key: key, clientDataJSON: response.clientDataJSON)
        return VerifiedRegistration(
            credentialId: attested.credentialId, publicKey: key.encoded, algorithm: key.algorithm, signCount: data.signCount,
            backupEligible: data.flags.contains(.backupEligible), backedUp: data.flags.contains(.backedUp),
            userVerified: data.flags.contains(.userVerified), aaguid: attested.aaguidString, transports: response.transports,
            attestationFormat: object.format)
    }

    /// Check 4's attestation statement: `none` with an empty `attStmt`, or `packed`
    /// self-attestation — exactly `alg` (the key's) and `sig` (the credential key's signature
    /// over `authData ‖ SHA-256(clientDataJSON)`), no `x5c`.
    /// - Throws: `attestation`.
    public static func checkAttestation(
        _ object: AttestationObject, key: COSEKey, clientDataJSON: [UInt8]
    )
        throws(PasskeyCheckFailure)
    {
        let statement = CBOR.map(object.statement)
        switch object.format {
        case "none":
            guard object.statement.isEmpty else { throw PasskeyCheckFailure(.attestation, "a none attestation with a statement") }
        case "packed":
            guard statement["x5c"] == nil else {
                throw PasskeyCheckFailure(.attestation, "packed attestation with x5c: only self-attestation is accepted")
            }
            guard object.statement.count == 2, let alg = statement["alg"]?.int64Value, let sig = statement["sig"]?.bytesValue else {
                throw PasskeyCheckFailure(.attestation, "a packed statement is not exactly alg and sig")
            }
            guard alg == key.algorithm.rawValue else {
                throw PasskeyCheckFailure(.attestation, "the packed statement's alg is not the credential key's")
            }
            guard key.verify(signature: sig, over: signedBytes(authData: object.authData, clientDataJSON: clientDataJSON)) else {
                throw PasskeyCheckFailure(.attestation, "the packed self-attestation signature does not verify")
            }
        default:
            throw PasskeyCheckFailure(.attestation, "the attestation format is neither none nor packed")
        }
    }

    /// Verifies an assertion.
    ///
    /// `passkey` is what the caller found for `rawId` — nil when no passkey has that id, or it belongs to another user than the one the
    /// options named (the same answer for both); the caller looks it up before calling (a read), and the checks still fail in the
    /// contract's order.
    /// - Throws: the first failing check: `type`, `challenge`, `origin`, `credential`, `userHandle`, `encoding`, `rpId`, `userPresence`,
    ///   `userVerification`, `flags`, `signature`, `signCount` (`isCloneSuspected`).
    public static func verifyAssertion(
        _ response: AssertionResponse, challenge: [UInt8], passkey: PasskeyVerificationKey?,
        requireUserHandle: Bool = false, settings: RelyingPartySettings
    ) throws(PasskeyCheckFailure) -> VerifiedAssertion {
        try checkClientData(response.clientData, type: .get, challenge: challenge, settings: settings)
        guard let passkey else { throw PasskeyCheckFailure(.credential, "no registered passkey has this id") }
        try checkUserHandle(response.userHandle, passkeyUserHandle: passkey.userHandle, required: requireUserHandle)
        let data = try checkAuthenticatorData(response.authenticatorData, settings: settings)
        try checkBackupEligibility(data, stored: passkey.backupEligible)
        guard let key = parsedKeys.key(passkey.publicKey),
            key.verify(
                signature: response.signature,
                over: signedBytes(authData: response.authenticatorData, clientDataJSON: response.clientDataJSON))
        else { throw PasskeyCheckFailure(.signature, "the signature does not verify with the passkey's key") }
        try checkSignCount(stored: passkey.signCount, new: data.signCount)
        return VerifiedAssertion(
            signCount: data.signCount, backupEligible: data.flags.contains(.backupEligible),
            backedUp: data.flags.contains(.backedUp), userVerified: data.flags.contains(.userVerified))
    }

    /// The counter rule: when the stored or the new count is not zero, the new one must be greater.
    /// - Throws: `signCount` — a possibly cloned authenticator.
    public static func checkSignCount(stored: UInt32, new: UInt32) throws(PasskeyCheckFailure) {
        if stored != 0 || new != 0, new <= stored {
            throw PasskeyCheckFailure(.signCount, "the signature counter did not grow (possibly a cloned authenticator)")
        }
    }

    /// What an assertion or a packed statement signs: `authData ‖ SHA-256(clientDataJSON)`.
    public static func signedBytes(authData: [UInt8], clientDataJSON: [UInt8]) -> [UInt8] {
        authData + SHA256.hash(data: clientDataJSON).byteArray
    }
}
