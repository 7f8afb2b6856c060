import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

// The wire forms of the `server/` methods: keys, proofs and signatures as unpadded base64url,
// the installation that asks, and the results of the server half's operations.

extension Codec {
    /// A value written as text and parsed once, here at the edge; `message` names the problem
    /// when the text does not parse.
    static func parsedText(
        _ summary: String, _ message: String, parse: @escaping @Sendable (String) -> Value?,
        format: @escaping @Sendable (Value) -> String
    ) -> Codec<Value> {
        let text = Codec<String>.text
        return Codec(
            schema: text.described(summary).schema,
            read: { json, path, problems in
                guard let string = text.read(json, path, &problems) else { return nil }
                guard let value = parse(string) else {
                    problems.append(ParamProblem(path, message))
                    return nil
                }
                return value
            }, write: { .string(format($0)) })
    }

}

extension Codec where Value == PublicKey {
    /// A P-256 public key: the 65-byte uncompressed SEC1 point, unpadded base64url, on the curve.
    static let publicKey = Codec.parsedText(
        "P-256 public key: the 65-byte uncompressed SEC1 point (0x04‖X‖Y), unpadded base64url",
        "must be a P-256 public key: the 65-byte uncompressed SEC1 point on the curve, unpadded base64url",
        parse: PublicKey.init(base64url:), format: \.base64url)
}

extension Codec where Value == Signature {
    /// An ECDSA P-256 signature: 64 bytes raw `r‖s`, or strict DER; unpadded base64url.
    static let signature = Codec.parsedText(
        "ECDSA P-256 signature over SHA-256 of the signed payload: 64 bytes raw r‖s or strict DER, unpadded base64url",
        "must be an ECDSA signature: 64 bytes raw r‖s or strict DER, unpadded base64url",
        parse: Signature.init(base64url:), format: \.base64url)
}

extension Codec where Value == String {
    /// Names the app installation that asks: 1–128 characters U+0020–U+007E.
    static let installationId = Codec.string(minLength: 1, maxLength: 128).checked {
        $0.isPrintableASCII ? nil : "must be printable ASCII (U+0020 to U+007E)"
    }
}

/// `{publicKey, proof}`: a key handed over with its proof of possession.
struct KeyParam: WireWritableParams {
    let publicKey: PublicKey
    let proof: Signature?
    static let schemaName: String? = "KeyWithProof"
    static let wire = (
        publicKey: WireMember.required("publicKey", Codec.publicKey),
        proof: WireMember.optional(
            "proof", Codec.signature, "the key's own signature over the payload of the operation that registers it (missing: proofInvalid)")
    )

    var domain: KeyWithProof { KeyWithProof(publicKey: publicKey, proof: proof) }
}

/// `{device: {publicKey, proof}, pin*, touchId*, faceId*}`.
struct KeySetParam: WireWritableParams {
    let device: KeyParam
    let pin: KeyParam?
    let touchId: KeyParam?
    let faceId: KeyParam?
    static let schemaName: String? = "KeySet"
    static let unknownMemberProblem: String? = "names no role: the roles are device, pin, touchId, faceId"
    static let wire = (
        device: WireMember.required("device", .object(KeyParam.self)), pin: WireMember.optional("pin", .object(KeyParam.self)),
        touchId: WireMember.optional("touchId", .object(KeyParam.self)), faceId: WireMember.optional("faceId", .object(KeyParam.self))
    )

    var factors: [(AuthMethod, KeyParam)] {
        [(AuthMethod.pin, pin), (.touchId, touchId), (.faceId, faceId)].compactMap { method, key in key.map { (method, $0) } }
    }

    /// Exactly one two-factor key besides `device` (a recovery's keys).
    static let exactlyOneFactor = WireRule<Self>.custom { keys, path, problems in
        if keys.factors.count != 1 {
            problems.append(ParamProblem(path, "must hold device and exactly one of pin, touchId, faceId"))
        }
    }

    var domain: KeySet {
        var set = KeySet(device: device.domain)
        for (method, key) in factors { set.factors[method] = key.domain }
        return set
    }
}

/// `{device, pin*|touchId*|faceId*}`: the device's signature and at most one second factor.
struct SignaturesParam: WireWritableParams {
    let device: Signature
    let pin: Signature?
    let touchId: Signature?
    let faceId: Signature?
    static let schemaName: String? = "Signatures"
    static let unknownMemberProblem: String? = "names no role: the roles are device, pin, touchId, faceId"
    static let wire = (
        device: WireMember.required("device", Codec.signature, "checked first; never counted"), pin: WireMember.optional("pin", .signature),
        touchId: WireMember.optional("touchId", .signature), faceId: WireMember.optional("faceId", .signature)
    )
    static let rules: [WireRule<Self>] = [
        .custom { signatures, path, problems in
            let given = signatures.factors
            if given.count > 1 {
                let prefix = path.isEmpty ? "" : path + "."
                problems.append(
                    ParamProblem(prefix + given[1].0.rawValue, "cannot be given together with \(given[0].0.rawValue) (at most one second factor)"))
            }
        }
    ]

    var factors: [(AuthMethod, Signature)] {
        [(AuthMethod.pin, pin), (.touchId, touchId), (.faceId, faceId)].compactMap { method, signature in signature.map { (method, $0) } }
    }

    var domain: FactorSignatures { FactorSignatures(device: device, factor: factors.first) }
}

extension Codec where Value == ChallengePurpose {
    /// The purposes a caller may ask for (`addAuthMethod` challenges are the simulated device's).
    static let challengePurpose = Codec.enumeration(ChallengePurpose.self, [.authenticate, .removeRegistration])
}

// MARK: - results

extension Codec where Value == KeyRequest {
    /// A request for new keys, its id named `id` (`activationId`, `challengeId`), `methods`
    /// saying which methods it offers.
    static func keyRequest(id: String, methods: String) -> Codec<KeyRequest> {
        .members(
            [
                .required(id, \.id, .text), .required("challenge", \.challenge, .text), .required("expiresAt", \.expiresAt, .time),
                .required("authMethodsForActivation", \.authMethodsForActivation, .authMethods, methods),
            ] + pinRuleFields(\.pinRules.type, \.pinRules.minLength, \.pinRules.maxLength) + [
                .optional(
                    "operationSigningKey", \.operationSigningKey, .publicKey,
                    "the application's operation-signing key (QR payloads): the phone keeps it from its activation")
            ])
    }

    /// What `server/activation/prepare` and `server/onboarding/activate` answer.
    static let preparedActivation = keyRequest(id: "activationId", methods: "the application's enabled methods")
    /// What `server/recovery/challenge` answers.
    static let recoveryChallenge = keyRequest(id: "challengeId", methods: "the application's enabled two-factor methods")
}

/// What `server/activation/commit` answers.
struct CommittedActivation: WireObject {
    var outcome: ActivationOutcome
    static let fields: [WireField<Self>] = [
        .required("registrationId", \.outcome.registrationId, .text),
        .required("activatedAuthMethods", \.outcome.activatedAuthMethods, .authMethods),
        .optional("serverPublicKey", \.outcome.serverPublicKey, .publicKey, "the registration's server key (offline approval)"),
        .token(\.outcome.token),
    ]
}

/// What `server/recovery/commit` answers: as an activation, with the registration's server key (kept across a recovery).
struct CommittedRecovery: WireObject {
    var outcome: ActivationOutcome
    static let fields: [WireField<Self>] =
        Array(ActivationOutcome.fields.map { $0.lifted(\.outcome) }.dropLast()) + [
            .optional("serverPublicKey", \.outcome.serverPublicKey, .publicKey, "the registration's server key (offline approval)"),
            .token(\.outcome.token),
        ]
}

extension Challenge: WireObject {
    public static let fields: [WireField<Self>] =
        [
            .required("challengeId", \.challengeId, .text), .required("challenge", \.challenge, .text),
            .required("expiresAt", \.expiresAt, .time),
            .required("authenticationMethods", \.authenticationMethods, .authMethods),
        ] + ChallengeStanding.fields.map { $0.lifted(\.standing) } + [
            .required("contextHash", \.contextHash, .text, "unpadded base64url SHA-256 of the pushed context, or empty"),
            .optional("operationSigningKey", \.operationSigningKey, .publicKey, "the application's operation-signing key (authenticate)"),
            .optional("serverPublicKey", \.serverPublicKey, .publicKey, "the registration's server key (authenticate)"),
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
