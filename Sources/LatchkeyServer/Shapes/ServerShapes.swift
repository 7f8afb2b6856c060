import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

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

    /// The same wire form kept in an optional slot: a required member whose type has no
    /// default value to start decoding from (nil only until the member is read).
    public var stored: Codec<Value?> {
        let read = self.read
        let write = self.write
        return Codec<Value?>(
            schema: schema, read: { json, path, problems in read(json, path, &problems).map { .some($0) } },
            write: { $0.map(write) ?? .null })
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

/// A required member's value, which reading set (its slot is nil only before that).
public func readValue<T>(_ value: T?, at path: String) throws -> T {
    guard let value else { throw RPCError.invalidParams([ParamProblem(path, "is required")]) }
    return value
}

/// `{publicKey, proof}`: a key handed over with its proof of possession.
struct KeyParam: WireReadable {
    var publicKey: PublicKey?
    var proof: Signature?
    static let schemaName: String? = "KeyWithProof"
    static let fields: [WireField<Self>] = [
        .required("publicKey", \.publicKey, Codec.publicKey.stored),
        .optional(
            "proof", \.proof, Codec.signature,
            "the key's own signature over the payload of the operation that registers it (missing: proofInvalid)"),
    ]

    func domain(at path: String) throws -> KeyWithProof {
        KeyWithProof(publicKey: try readValue(publicKey, at: path + ".publicKey"), proof: proof)
    }
}

/// `{device: {publicKey, proof}, pin*, touchId*, faceId*}`.
struct KeySetParam: WireReadable {
    var device = KeyParam()
    var pin: KeyParam?
    var touchId: KeyParam?
    var faceId: KeyParam?
    static let schemaName: String? = "KeySet"
    static let unknownMemberProblem: String? = "names no role: the roles are device, pin, touchId, faceId"
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
    var device: Signature?
    var pin: Signature?
    var touchId: Signature?
    var faceId: Signature?
    static let schemaName: String? = "Signatures"
    static let unknownMemberProblem: String? = "names no role: the roles are device, pin, touchId, faceId"
    static let fields: [WireField<Self>] = [
        .required("device", \.device, Codec.signature.stored, "checked first; never counted"),
        .optional("pin", \.pin, .signature), .optional("touchId", \.touchId, .signature), .optional("faceId", \.faceId, .signature),
    ]
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

    func domain(at path: String) throws -> FactorSignatures {
        FactorSignatures(device: try readValue(device, at: path + ".device"), factor: factors.first)
    }
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
            ] + pinRuleFields(\.pinRules.type, \.pinRules.minLength, \.pinRules.maxLength))
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
        .required("activatedAuthMethods", \.outcome.activatedAuthMethods, .authMethods), .token(\.outcome.token),
    ]
}

extension Challenge: WireObject {
    public static let fields: [WireField<Self>] =
        [
            .required("challengeId", \.challengeId, .text), .required("challenge", \.challenge, .text),
            .required("expiresAt", \.expiresAt, .time),
            .required("authenticationMethods", \.authenticationMethods, .authMethods),
        ] + ChallengeStanding.fields.map { $0.lifted(\.standing) } + [
            .required("contextHash", \.contextHash, .text, "unpadded base64url SHA-256 of the pushed context, or empty")
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
