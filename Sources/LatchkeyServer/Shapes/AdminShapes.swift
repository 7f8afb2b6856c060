import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

extension Codec where Value == [AuthMethod: [AuthMethod]] {
    /// `{"pin": ["faceId", "touchId", "pin"], …}`: for a method that proves the user, the
    /// methods it may add or update (members in the contract's method order).
    static let addOrUpdateAllowedBy = Codec(
        schema: .object(
            AuthMethod.allCases.map { Field($0.rawValue, Codec<[AuthMethod]>.authMethods.schema, required: false) },
            additional: false),
        read: { json, path, problems in
            guard let object = json.object(at: path, into: &problems) else { return nil }
            let before = problems.count
            var map: [AuthMethod: [AuthMethod]] = [:]
            for method in AuthMethod.allCases {
                guard let member = object[method.rawValue], !member.isNull else { continue }
                if let list = Codec<[AuthMethod]>.authMethods.read(member, "\(path).\(method.rawValue)", &problems) { map[method] = list }
            }
            for key in object.keys where AuthMethod(rawValue: key) == nil {
                let keyPath = memberPath(path, key)
                problems.append(ParamProblem(keyPath, keyPath == path ? "has a key that is not an auth method" : "is not an auth method"))
            }
            return problems.count == before ? map : nil
        },
        write: { map in
            var object = JSONObject()
            for method in AuthMethod.allCases {
                if let list = map[method] { object.appendUnchecked(method.rawValue, Codec<[AuthMethod]>.authMethods.write(list)) }
            }
            return .object(object)
        })
}

extension ApplicationConfig: WireObject {
    public static let schemaName: String? = "Application"
    public static let fields: [WireField<Self>] = [
        .required("applicationId", \.applicationId, .text),
        .required("activationCodeLength", \.activationCodeLength, .within(Bounds.activationCodeLength)),
        .required("activationCodeType", \.activationCodeType, .enumeration(ActivationCodeType.self)),
        .required("activationCodeTtlSeconds", \.activationCodeTtlSeconds, .seconds()),
        .required("pinCodeType", \.pinCodeType, .enumeration(PinCodeType.self)),
        .required("pinCodeLengthMin", \.pinCodeLengthMin, .within(Bounds.pinCodeLength)),
        .required("pinCodeLengthMax", \.pinCodeLengthMax, .within(Bounds.pinCodeLength)),
        .required("maxFailedAttempts", \.maxFailedAttempts, .within(Bounds.maxFailedAttempts)),
        .required("authMethods", \.authMethods, .authMethods),
        .required("addOrUpdateAllowedBy", \.addOrUpdateAllowedBy, .addOrUpdateAllowedBy),
        .required("tokenTtlSeconds", \.tokenTtlSeconds, .within(Bounds.tokenTtlSeconds)),
        .required("redirectUrlPrefixes", \.redirectUrlPrefixes, .strings),
        .required("passkeyRpId", \.relyingParty.rpId, .text, "the WebAuthn RP id passkeys are scoped to"),
        .required("passkeyRpName", \.relyingParty.rpName, .text),
        .required("passkeyOrigins", \.relyingParty.origins, .strings, "exact origins, or android:apk-key-hash:… entries"),
        .required("passkeyUserVerification", \.relyingParty.userVerification, .userVerification),
    ]
}

extension ServerConfig: WireObject {
    public static let schemaName: String? = "ServerConfig"
    public static let fields: [WireField<Self>] = [
        .required("gracePeriodSeconds", \.gracePeriodSeconds, .integer()),
        .required("insecureWindowSeconds", \.insecureWindowSeconds, .integer()),
        .required("sessionLifetimeSeconds", \.sessionLifetimeSeconds, .integer()),
    ]
}

extension RegistrationInfo: WireObject {
    public static let schemaName: String? = "Registration"
    public static let fields: [WireField<Self>] = [
        .required("registrationId", \.registrationId, .text),
        .required("userId", \.userId, .text),
        .required("applicationId", \.applicationId, .text),
        .nullable("name", \.name, .text, "the activation's name (activationName; the device's name by default)"),
        .required("state", \.state, .enumeration(RegistrationState.self)),
        .required("authMethods", \.authMethods, .authMethods),
        .required("failedAttempts", \.failedAttempts, .int()),
        .required("maxFailedAttempts", \.maxFailedAttempts, .int()),
        .required("recoveryMethods", \.recoveryMethods, .recoveryMethods),
        .nullable("lastAttempt", \.lastAttempt, .time),
    ]
}

extension Codec where Value == [String] {
    /// `["backup"]` or `[]`.
    public static let recoveryMethods = Codec<[String]>.array(
        Codec<String>(
            schema: .enumeration(["backup"]),
            read: { json, path, problems in
                guard json == .string("backup") else {
                    problems.append(ParamProblem(path, "must be one of backup"))
                    return nil
                }
                return "backup"
            }, write: { .string($0) }))
}

extension PushedAuthenticationInfo: WireObject {
    public static let fields: [WireField<Self>] = [
        .required("authenticationId", \.authenticationId, .text),
        .required("registrationId", \.registrationId, .text),
        .required("status", \.status, .enumeration(PushedAuthenticationStatus.self)),
        .nullable("contextTitle", \.contextTitle, .text),
        .nullable("decidedAt", \.decidedAt, .time),
    ]
}

extension AuditEvent: WireObject {
    public static let schemaName: String? = "AuditEvent"
    public static let fields: [WireField<Self>] = [
        .required("at", \.at, .time),
        .required("type", \.type, .enumeration(AuditEventType.self)),
        .optional("userId", \.userId, .text),
        .optional("registrationId", \.registrationId, .text),
        .optional("deviceId", \.deviceId, .text),
        .optional("detail", \.detail, .text),
        .optional("activationName", \.activationName, .text),
        .optional("installationId", \.installationId, .text),
        .optional("check", \.check, .text, "passkeyRejected: the Relying Party check the credential failed"),
        .optional("operationId", \.operationId, .text),
        .optional("dataMismatch", \.dataMismatch, .bool, "operationRejected: the phone showed other data than the operation's"),
    ]
}

extension OutboundMessage: WireObject {
    public static let schemaName: String? = "Message"
    public static let fields: [WireField<Self>] = [
        .required("id", \.id, .text),
        .required("channel", \.channel, .enumeration(DeliveryChannel.self)),
        .required("to", \.to, .text),
        .required("purpose", \.purpose, .enumeration(DeliveryPurpose.self)),
        .optional("code", \.code, .text, "the one-time code, as the channel would carry it"),
        .optional("link", \.link, .text),
        .required("text", \.text, .text),
        .required("sentAt", \.sentAt, .time),
    ]
}
