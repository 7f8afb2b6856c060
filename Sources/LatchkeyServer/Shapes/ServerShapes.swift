import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

// The wire forms of the `server/` methods: keys, proofs and signatures as unpadded base64url,
// the installation that asks, and the results of the server half's operations.

extension Codec where Value == String {
    /// A P-256 public key: the 65-byte uncompressed SEC1 point, unpadded base64url, on the curve.
    static let publicKey = Codec.text.described(
        "P-256 public key: the 65-byte uncompressed SEC1 point (0x04‖X‖Y), unpadded base64url"
    ).checked {
        PublicKey(base64url: $0) == nil
            ? "must be a P-256 public key: the 65-byte uncompressed SEC1 point on the curve, unpadded base64url" : nil
    }

    /// An ECDSA P-256 signature: 64 bytes raw `r‖s`, or strict DER; unpadded base64url.
    static let signature = Codec.text.described(
        "ECDSA P-256 signature over SHA-256 of the signed payload: 64 bytes raw r‖s or strict DER, unpadded base64url"
    ).checked {
        Signature(base64url: $0) == nil ? "must be an ECDSA signature: 64 bytes raw r‖s or strict DER, unpadded base64url" : nil
    }

    /// Names the app installation that asks: 1–128 characters U+0020–U+007E.
    static let installationId = Codec.string(minLength: 1, maxLength: 128).checked {
        $0.unicodeScalars.allSatisfy { (0x20...0x7E).contains($0.value) } ? nil : "must be printable ASCII (U+0020 to U+007E)"
    }
}

/// Reads a key or a signature that its codec has already checked.
private func decoded<T>(_ text: String, at path: String, _ parse: (String) -> T?) throws -> T {
    guard let value = parse(text) else { throw RPCError.invalidParams([ParamProblem(path, "does not decode")]) }
    return value
}

/// `{publicKey, proof}`: a key handed over with its proof of possession.
struct KeyParam: WireReadable {
    var publicKey = ""
    var proof = ""
    static let schemaName: String? = "KeyWithProof"
    static let fields: [WireField<Self>] = [
        .required("publicKey", \.publicKey, .publicKey),
        .required("proof", \.proof, .signature, "the key's own signature over the payload of the operation that registers it"),
    ]

    func domain(at path: String) throws -> KeyWithProof {
        KeyWithProof(publicKey: try decoded(publicKey, at: path + ".publicKey", PublicKey.init(base64url:)),
                     proof: try decoded(proof, at: path + ".proof", Signature.init(base64url:)))
    }
}

/// `{device: {publicKey, proof}, pin*, touchId*, faceId*}`.
struct KeySetParam: WireReadable {
    var device = KeyParam()
    var pin: KeyParam?
    var touchId: KeyParam?
    var faceId: KeyParam?
    static let schemaName: String? = "KeySet"
    static let fields: [WireField<Self>] = [
        .required("device", \.device, .object(KeyParam.self)), .optional("pin", \.pin, .object(KeyParam.self)),
        .optional("touchId", \.touchId, .object(KeyParam.self)), .optional("faceId", \.faceId, .object(KeyParam.self)),
    ]

    var factors: [(AuthMethod, KeyParam)] {
        [(AuthMethod.pin, pin), (.touchId, touchId), (.faceId, faceId)].compactMap { method, key in key.map { (method, $0) } }
    }

    /// Exactly one two-factor key besides `device` (a recovery's keys).
    static let exactlyOneFactor = WireRule<Self>.custom { keys, path, problems in
        if keys.factors.count != 1 {
            problems.append(ParamProblem(path, "must hold device and exactly one of pin, touchId, faceId"))
        }
    }

    func domain(at path: String) throws -> KeySet {
        var set = KeySet(device: try device.domain(at: path + ".device"))
        for (method, key) in factors { set.factors[method] = try key.domain(at: "\(path).\(method.rawValue)") }
        return set
    }
}

/// `{device, pin*|touchId*|faceId*}`: the device's signature and at most one second factor.
struct SignaturesParam: WireReadable {
    var device = ""
    var pin: String?
    var touchId: String?
    var faceId: String?
    static let schemaName: String? = "Signatures"
    static let fields: [WireField<Self>] = [
        .required("device", \.device, .signature, "checked first; never counted"),
        .optional("pin", \.pin, .signature), .optional("touchId", \.touchId, .signature), .optional("faceId", \.faceId, .signature),
    ]
    static let rules: [WireRule<Self>] = [
        .custom { signatures, path, problems in
            let given = signatures.factors
            if given.count > 1 {
                let prefix = path.isEmpty ? "" : path + "."
                problems.append(ParamProblem(prefix + given[1].0.rawValue, "cannot be given together with \(given[0].0.rawValue) (at most one second factor)"))
            }
        },
    ]

    var factors: [(AuthMethod, String)] {
        [(AuthMethod.pin, pin), (.touchId, touchId), (.faceId, faceId)].compactMap { method, text in text.map { (method, $0) } }
    }

    func domain(at path: String) throws -> FactorSignatures {
        let device = try decoded(device, at: path + ".device", Signature.init(base64url:))
        guard let (method, text) = factors.first else { return FactorSignatures(device: device) }
        return FactorSignatures(device: device, factor: (method, try decoded(text, at: "\(path).\(method.rawValue)", Signature.init(base64url:))))
    }
}

extension Codec where Value == ChallengePurpose {
    /// The purposes a caller may ask for (`addAuthMethod` challenges are the simulated device's).
    static let challengePurpose = Codec.enumeration(ChallengePurpose.self, [.authenticate, .removeRegistration])
}

// MARK: - results

extension PreparedActivation: WireObject {
    public static let fields: [WireField<Self>] = [
        .required("activationId", \.activationId, .text), .required("challenge", \.challenge, .text),
        .required("expiresAt", \.expiresAt, .time),
        .required("authMethodsForActivation", \.authMethodsForActivation, .authMethods, "the application's enabled methods"),
    ] + pinRuleFields(\.pinRules.type, \.pinRules.minLength, \.pinRules.maxLength)
}

extension RecoveryChallenge: WireObject {
    public static let fields: [WireField<Self>] = [
        .required("challengeId", \.challengeId, .text), .required("challenge", \.challenge, .text),
        .required("expiresAt", \.expiresAt, .time),
        .required("authMethodsForActivation", \.authMethodsForActivation, .authMethods, "the application's enabled two-factor methods"),
    ] + pinRuleFields(\.pinRules.type, \.pinRules.minLength, \.pinRules.maxLength)
}

/// What `server/activation/commit` answers.
struct CommittedActivation: WireObject {
    var outcome: ActivationOutcome
    static let fields: [WireField<Self>] = [
        .required("registrationId", \.outcome.registrationId, .text),
        .required("activatedAuthMethods", \.outcome.activatedAuthMethods, .authMethods), .token(\.outcome.token),
    ]
}

extension Challenge: WireObject {
    public static let fields: [WireField<Self>] = [
        .required("challengeId", \.challengeId, .text), .required("challenge", \.challenge, .text),
        .required("expiresAt", \.expiresAt, .time),
        .required("authenticationMethods", \.authenticationMethods, .authMethods),
    ] + ChallengeStanding.fields.map { $0.lifted(\.standing) } + [
        .required("contextHash", \.contextHash, .text, "unpadded base64url SHA-256 of the pushed context, or empty"),
    ]
}

extension Verification: WireObject {
    public static let fields: [WireField<Self>] = [
        .computed("responseType", \.responseType, .enumeration(ResponseType.self, [.authenticated])),
        .nullable("contextContent", \.contextContent, .text),
        .token(\.token),
    ]
    var responseType: ResponseType { .authenticated }
}

extension RegistrationStatus: WireObject {
    public static let fields: [WireField<Self>] = [
        .required("registrationId", \.registrationId, .text),
        .required("state", \.state, .enumeration(RegistrationState.self)),
        .required("authMethods", \.authMethods, .authMethods),
        .required("remainingAttemptsPIN", \.remainingAttemptsPIN, .int()),
        .required("totalAttemptsPIN", \.totalAttemptsPIN, .int()),
        .required("recoveryMethods", \.recoveryMethods, .strings),
    ]
}
