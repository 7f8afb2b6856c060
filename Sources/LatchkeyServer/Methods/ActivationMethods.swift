import LatchkeyCore
import LatchkeyJSON

/// Activation, authentication, methods, deactivation and session cancel.
enum ActivationMethods {
    static let stateErrors: [ErrorReason] = [.registrationRemoved, .lockedByAdmin, .registrationLocked, .verificationPending]
    static let finishErrors: [ErrorReason] = [.noSessionInProgress, .sessionExpired] + stateErrors
    static let biometryErrors: [ErrorReason] = [.biometryUnavailable, .biometryFailed, .biometryCancelled]

    static let all: [MethodSpec] = [
        MethodSpec("config/load", "The application's activation code format.", params: [Wire.applicationId],
                   result: .object([Field("activationCodeLength", .integer()),
                                    Field("activationCodeType", .enumeration(ActivationCodeType.allCases.map(\.rawValue)))]),
                   errors: [.notFound]) { params, context in
            let app = try context.core.applicationConfig(params.optionalString("applicationId"))
            return ["activationCodeLength": .int(app.activationCodeLength), "activationCodeType": .string(app.activationCodeType.rawValue)]
        },
        MethodSpec("pin/validate", "Checks a PIN against the application's policy.",
                   params: [Field("pin", .text), Wire.applicationId],
                   result: .object([Field("valid", .boolean),
                                    Field("violations", .array(.enumeration(["tooShort", "tooLong", "notNumeric", "notAlphanumeric"])))]),
                   errors: [.notFound]) { params, context in
            let violations = try context.core.validatePin(params.string("pin"), applicationId: params.optionalString("applicationId"))
            return ["valid": .bool(violations.isEmpty), "violations": .strings(violations)]
        },
        MethodSpec("activation/start", "Checks an activation code and binds it to the device.",
                   params: [Wire.deviceId, Field("activationCode", .text), Wire.applicationId], result: Wire.offerSchema,
                   errors: [.notFound, .alreadyActivated, .rateLimited, .activationCodeInvalid, .activationCodeExpired]) { params, context in
            Wire.offer(try context.core.startActivation(deviceId: params.string("deviceId"), activationCode: params.string("activationCode"),
                                                        applicationId: params.optionalString("applicationId")))
        },
        MethodSpec("activation/finish", "Creates the factor keys and the registration.",
                   params: [Wire.deviceId, Field("authParameter", Wire.authParameter), Wire.tokenPurpose],
                   result: Wire.activationOutcomeSchema,
                   errors: [.notFound, .noSessionInProgress, .sessionExpired, .activationCodeInvalid, .activationCodeExpired,
                            .authMethodNotAllowed, .policyViolation, .onboardingFailed] + biometryErrors) { params, context in
            Wire.activationOutcome(try context.core.finishActivation(
                deviceId: params.string("deviceId"), try Wire.authParameter(params, "authParameter"), tokenPurpose: Wire.tokenPurpose(params)))
        },
        MethodSpec("authentication/start", "Opens an authentication; picks up a pushed authentication if one is pending.",
                   params: [Wire.deviceId, .optional("clientOnly", .boolean, "must be false")],
                   result: .object([
                       Field("authenticationMethods", Wire.authMethods), Field("lastAttempt", .nullable(CommonSchemas.time)),
                       Field("totalAttemptsPIN", .integer()), Field("remainingAttemptsPIN", .integer()),
                       .optional("authenticationId", .text, "when a pushed authentication was picked up"),
                       Field("contextTitle", .nullable(.text)), Field("contextContent", .nullable(.text)),
                       Field("contextMIME", .nullable(.text)),
                   ] + Wire.pinRules),
                   errors: [.notFound, .notActivatedLocally] + stateErrors) { params, context in
            if params.bool("clientOnly", default: false) {
                throw DomainError.invalidParam("clientOnly", "must be false: client-only authentication is not supported")
            }
            let info = try context.core.startAuthentication(deviceId: params.string("deviceId"))
            var object = JSONObject([
                ("authenticationMethods", Wire.methods(info.authenticationMethods)), ("lastAttempt", Wire.time(info.lastAttempt)),
                ("totalAttemptsPIN", .int(info.totalAttemptsPIN)), ("remainingAttemptsPIN", .int(info.remainingAttemptsPIN)),
            ])
            if let id = info.authenticationId { object["authenticationId"] = .string(id) }
            object["contextTitle"] = .string(orNull: info.contextTitle)
            object["contextContent"] = .string(orNull: info.contextContent)
            object["contextMIME"] = .string(orNull: info.contextMIME)
            Wire.pinRules(info.pinCodeType, info.pinCodeLengthMin, info.pinCodeLengthMax, into: &object)
            return .object(object)
        },
        MethodSpec("authentication/finish", "Answers the challenge; the server verifies and counts.",
                   params: [Wire.deviceId, Field("authParameter", Wire.authParameter), Wire.tokenPurpose],
                   result: .object([Field("responseType", .enumeration(["authenticated"])), Field("contextContent", .nullable(.text)),
                                    Wire.token]),
                   errors: [.notFound, .notActivatedLocally] + finishErrors
                       + [.authMethodNotAllowed, .authenticationFailed] + biometryErrors) { params, context in
            let outcome = try context.core.finishAuthentication(
                deviceId: params.string("deviceId"), try Wire.authParameter(params, "authParameter"), tokenPurpose: Wire.tokenPurpose(params))
            return Wire.withToken(JSONObject([("responseType", "authenticated"), ("contextContent", .string(orNull: outcome.contextContent))]),
                                  outcome.token)
        },
        MethodSpec("authMethod/startAddOrUpdate", "Opens an add-or-update of an auth method.", params: [Wire.deviceId],
                   result: .object([Field("allowedAuthMethodsToActivate", Wire.authMethods), Field("authenticationMethods", Wire.authMethods),
                                    Field("remainingAttemptsPIN", .integer())] + Wire.pinRules),
                   errors: [.notFound, .notActivatedLocally] + stateErrors) { params, context in
            let offer = try context.core.startAddOrUpdate(deviceId: params.string("deviceId"))
            var object = JSONObject([
                ("allowedAuthMethodsToActivate", Wire.methods(offer.allowedAuthMethodsToActivate)),
                ("authenticationMethods", Wire.methods(offer.authenticationMethods)), ("remainingAttemptsPIN", .int(offer.remainingAttemptsPIN)),
            ])
            Wire.pinRules(offer.pinCodeType, offer.pinCodeLengthMin, offer.pinCodeLengthMax, into: &object)
            return .object(object)
        },
        MethodSpec("authMethod/finishAddOrUpdate", "Adds or updates a method (a new PIN, a biometric method) after the user proves themselves.",
                   params: [Wire.deviceId, Field("activationParameter", Wire.authParameter, "the method to add or update"),
                            Field("authParameter", Wire.authParameter, "proves the user")],
                   result: .object([Field("activatedAuthMethods", Wire.authMethods)]),
                   errors: [.notFound, .notActivatedLocally] + finishErrors
                       + [.authMethodNotAllowed, .policyViolation, .authenticationFailed] + biometryErrors) { params, context in
            let methods = try context.core.finishAddOrUpdate(
                deviceId: params.string("deviceId"), activation: try Wire.authParameter(params, "activationParameter"),
                proof: try Wire.authParameter(params, "authParameter"))
            return ["activatedAuthMethods": Wire.methods(methods)]
        },
        MethodSpec("authMethod/deactivate", "Removes a method after a device authentication.",
                   params: [Wire.deviceId, Field("authMethod", Wire.authMethod)],
                   result: .object([Field("activatedAuthMethods", Wire.authMethods)]),
                   errors: [.notFound, .notActivatedLocally, .cannotDeactivateDevice, .authMethodNotAllowed] + stateErrors) { params, context in
            let methods = try context.core.deactivateAuthMethod(deviceId: params.string("deviceId"),
                                                                params.value("authMethod", as: AuthMethod.self) ?? .device)
            return ["activatedAuthMethods": Wire.methods(methods)]
        },
        MethodSpec("registration/deactivate", "Deactivates the registration, on the server too unless onlyLocally.",
                   params: [Wire.deviceId, .optional("onlyLocally", .boolean, "default false")], result: CommonSchemas.empty,
                   errors: [.notFound, .notActivatedLocally, .registrationRemoved]) { params, context in
            try context.core.deactivateRegistration(deviceId: params.string("deviceId"), onlyLocally: params.bool("onlyLocally", default: false))
            return .object(JSONObject())
        },
        MethodSpec("session/cancel", "Cancels the operation in progress; a pushed authentication in hand is rejected.",
                   params: [Wire.deviceId], result: .object([Field("cancelled", .boolean)]), errors: [.notFound]) { params, context in
            ["cancelled": .bool(try context.core.cancelSession(deviceId: params.string("deviceId")))]
        },
    ]
}
