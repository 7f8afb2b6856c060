import LatchkeyCore
import LatchkeyJSON

/// Conversions between the wire and the domain that several method groups share.
enum Wire {
    /// The longest duration any method accepts: 100 years, so no time arithmetic can overflow.
    static let maxDuration: Int64 = 100 * 366 * 86_400

    static let deviceId = Field("deviceId", .string(minLength: 1), "the simulated device")
    static let applicationId = Field.optional("applicationId", .string(minLength: 1), "defaults to `default`")
    static let authMethod: Schema = .enumeration(AuthMethod.allCases.map(\.rawValue))
    static let authMethods: Schema = .array(authMethod)
    static let tokenPurpose = Field.optional("tokenPurpose", .enumeration(TokenPurpose.allCases.map(\.rawValue)),
                                             "default `none`; other purposes return a token")
    static let authParameter: Schema = .named("AuthParameter", .object([
        Field("method", authMethod), Field.optional("pin", .text, "required for method pin"),
    ]))
    static let pinRules: [Field] = [
        Field("pinCodeType", .enumeration(PinCodeType.allCases.map(\.rawValue))),
        Field("pinCodeLengthMin", .integer()), Field("pinCodeLengthMax", .integer()),
    ]
    static let token = Field.optional("token", .text, "present when tokenPurpose is not none")

    static func time(_ value: UnixTime?) -> JSON { value.map { .string(Timestamp.format($0)) } ?? .null }
    static func methods(_ list: [AuthMethod]) -> JSON { .strings(list.map(\.rawValue)) }

    /// An authParameter from validated params; `pin` is required for the `pin` method.
    static func authParameter(_ params: Params, _ key: String) throws -> AuthParameter {
        let nested = params.nested(key)
        let method = nested.value("method", as: AuthMethod.self) ?? .device
        let pin = nested.optionalString("pin")
        if method == .pin, pin == nil { throw DomainError.invalidParam("\(key).pin", "is required for method pin") }
        return AuthParameter(method: method, pin: pin)
    }

    static func tokenPurpose(_ params: Params) -> TokenPurpose {
        params.value("tokenPurpose", as: TokenPurpose.self) ?? .none
    }

    static func pinRules(_ type: PinCodeType, _ min: Int, _ max: Int, into object: inout JSONObject) {
        object["pinCodeType"] = .string(type.rawValue)
        object["pinCodeLengthMin"] = .int(min)
        object["pinCodeLengthMax"] = .int(max)
    }

    static func withToken(_ object: JSONObject, _ token: String?) -> JSON {
        var object = object
        if let token { object["token"] = .string(token) }
        return .object(object)
    }

    static func offer(_ offer: ActivationOffer) -> JSON {
        var object = JSONObject([("authMethodsForActivation", methods(offer.authMethodsForActivation))])
        pinRules(offer.pinCodeType, offer.pinCodeLengthMin, offer.pinCodeLengthMax, into: &object)
        return .object(object)
    }

    static let offerSchema: Schema = .named("ActivationOffer", .object([Field("authMethodsForActivation", authMethods)] + pinRules))

    static func registration(_ info: RegistrationInfo) -> JSON {
        [
            "registrationId": .string(info.registrationId), "userId": .string(info.userId),
            "applicationId": .string(info.applicationId), "state": .string(info.state.rawValue),
            "authMethods": methods(info.authMethods), "failedAttempts": .int(info.failedAttempts),
            "maxFailedAttempts": .int(info.maxFailedAttempts), "recoveryMethods": .strings(info.recoveryMethods),
            "lastAttempt": time(info.lastAttempt),
        ]
    }

    static let registrationSchema: Schema = .named("Registration", .object([
        Field("registrationId", .text), Field("userId", .text), Field("applicationId", .text),
        Field("state", .enumeration(RegistrationState.allCases.map(\.rawValue))), Field("authMethods", authMethods),
        Field("failedAttempts", .integer()), Field("maxFailedAttempts", .integer()),
        Field("recoveryMethods", .array(.enumeration(["backup"]))), Field("lastAttempt", .nullable(CommonSchemas.time)),
    ]))

    static let activationOutcomeSchema: Schema = .object([
        Field("registrationId", .text), Field("activatedAuthMethods", authMethods), token,
    ])

    static func activationOutcome(_ outcome: ActivationOutcome) -> JSON {
        withToken(JSONObject([("registrationId", .string(outcome.registrationId)),
                              ("activatedAuthMethods", methods(outcome.activatedAuthMethods))]), outcome.token)
    }
}
