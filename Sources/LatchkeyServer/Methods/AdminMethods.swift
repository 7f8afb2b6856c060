import LatchkeyCore
import LatchkeyJSON

/// The server operator's methods (closed by `--no-admin`).
enum AdminMethods {
    static let allowedBy: Schema = .object(AuthMethod.allCases.map { Field.optional($0.rawValue, Wire.authMethods) }, additional: false)

    static let applicationSchema: Schema = .named("Application", .object([
        Field("applicationId", .text), Field("activationCodeLength", .integer(minimum: 6, maximum: 32)),
        Field("activationCodeType", .enumeration(ActivationCodeType.allCases.map(\.rawValue))),
        Field("activationCodeTtlSeconds", .integer(minimum: 1, maximum: Wire.maxDuration)),
        Field("pinCodeType", .enumeration(PinCodeType.allCases.map(\.rawValue))),
        Field("pinCodeLengthMin", .integer(minimum: 4, maximum: 64)), Field("pinCodeLengthMax", .integer(minimum: 4, maximum: 64)),
        Field("maxFailedAttempts", .integer(minimum: 3, maximum: 10)), Field("authMethods", Wire.authMethods),
        Field("addOrUpdateAllowedBy", allowedBy), Field("tokenTtlSeconds", .integer(minimum: 30, maximum: 900)),
        Field("redirectUrlPrefixes", .array(.text)),
    ]))

    static func application(_ config: ApplicationConfig) -> JSON {
        var allowed = JSONObject()
        for method in AuthMethod.allCases { if let list = config.addOrUpdateAllowedBy[method] { allowed[method.rawValue] = Wire.methods(list) } }
        return [
            "applicationId": .string(config.applicationId), "activationCodeLength": .int(config.activationCodeLength),
            "activationCodeType": .string(config.activationCodeType.rawValue),
            "activationCodeTtlSeconds": .int(config.activationCodeTtlSeconds), "pinCodeType": .string(config.pinCodeType.rawValue),
            "pinCodeLengthMin": .int(config.pinCodeLengthMin), "pinCodeLengthMax": .int(config.pinCodeLengthMax),
            "maxFailedAttempts": .int(config.maxFailedAttempts), "authMethods": Wire.methods(config.authMethods),
            "addOrUpdateAllowedBy": .object(allowed), "tokenTtlSeconds": .int(config.tokenTtlSeconds),
            "redirectUrlPrefixes": .strings(config.redirectUrlPrefixes),
        ]
    }

    static let registrationId = Field("registrationId", .string(minLength: 1))

    static let all: [MethodSpec] = [
        MethodSpec("admin/configureApplication", "Creates or changes an application; absent fields keep their value.",
                   params: [
                       Field("applicationId", .string(minLength: 1)),
                       .optional("activationCodeLength", .integer(minimum: 6, maximum: 32)),
                       .optional("activationCodeType", .enumeration(ActivationCodeType.allCases.map(\.rawValue))),
                       .optional("activationCodeTtlSeconds", .integer(minimum: 1, maximum: Wire.maxDuration)),
                       .optional("pinCodeType", .enumeration(PinCodeType.allCases.map(\.rawValue))),
                       .optional("pinCodeLengthMin", .integer(minimum: 4, maximum: 64)),
                       .optional("pinCodeLengthMax", .integer(minimum: 4, maximum: 64)),
                       .optional("maxFailedAttempts", .integer(minimum: 3, maximum: 10)),
                       .optional("authMethods", Wire.authMethods, "enabled methods (device always is)"),
                       .optional("addOrUpdateAllowedBy", allowedBy, "method proving the user → methods it may add or update"),
                       .optional("tokenTtlSeconds", .integer(minimum: 30, maximum: 900)),
                       .optional("redirectUrlPrefixes", .array(.string(minLength: 1))),
                   ],
                   result: applicationSchema, errors: [.invalidParams], adminOnly: true) { params, context in
            var changes = ApplicationChanges()
            changes.activationCodeLength = params.optionalIntValue("activationCodeLength")
            changes.activationCodeType = params.value("activationCodeType", as: ActivationCodeType.self)
            changes.activationCodeTtlSeconds = params.optionalInt("activationCodeTtlSeconds")
            changes.pinCodeType = params.value("pinCodeType", as: PinCodeType.self)
            changes.pinCodeLengthMin = params.optionalIntValue("pinCodeLengthMin")
            changes.pinCodeLengthMax = params.optionalIntValue("pinCodeLengthMax")
            changes.maxFailedAttempts = params.optionalIntValue("maxFailedAttempts")
            changes.authMethods = params.optionalStrings("authMethods")?.compactMap(AuthMethod.init(rawValue:))
            if let allowed = params.optionalNested("addOrUpdateAllowedBy") {
                var map: [AuthMethod: [AuthMethod]] = [:]
                for entry in allowed.object.entries {
                    guard let proof = AuthMethod(rawValue: entry.key) else {
                        throw DomainError.invalidParam("addOrUpdateAllowedBy.\(entry.key)", "is not an auth method")
                    }
                    map[proof] = allowed.strings(entry.key).compactMap(AuthMethod.init(rawValue:))
                }
                changes.addOrUpdateAllowedBy = map
            }
            changes.tokenTtlSeconds = params.optionalInt("tokenTtlSeconds")
            changes.redirectUrlPrefixes = params.optionalStrings("redirectUrlPrefixes")
            return application(try context.core.configureApplication(params.string("applicationId"), changes))
        },
        MethodSpec("admin/configureServer", "Changes the server-wide lifetimes; absent fields keep their value.",
                   params: [.optional("gracePeriodSeconds", .integer(minimum: 1, maximum: Wire.maxDuration)), .optional("insecureWindowSeconds", .integer(minimum: 1, maximum: Wire.maxDuration)),
                            .optional("sessionLifetimeSeconds", .integer(minimum: 1, maximum: Wire.maxDuration))],
                   result: .named("ServerConfig", .object([Field("gracePeriodSeconds", .integer()), Field("insecureWindowSeconds", .integer()),
                                                          Field("sessionLifetimeSeconds", .integer())])),
                   adminOnly: true) { params, context in
            let config = try context.core.configureServer(
                gracePeriodSeconds: params.optionalInt("gracePeriodSeconds"), insecureWindowSeconds: params.optionalInt("insecureWindowSeconds"),
                sessionLifetimeSeconds: params.optionalInt("sessionLifetimeSeconds"))
            return ["gracePeriodSeconds": .int(config.gracePeriodSeconds), "insecureWindowSeconds": .int(config.insecureWindowSeconds),
                    "sessionLifetimeSeconds": .int(config.sessionLifetimeSeconds)]
        },
        MethodSpec("admin/createUser", "Creates a user (userId generated when absent).",
                   params: [.optional("userId", .string(minLength: 1)), .optional("email", .text), .optional("phoneNumber", .text, "E.164"),
                            .optional("password", .text), .optional("birthDate", .string(format: "date"), "YYYY-MM-DD"),
                            .optional("passkeys", .array(.object([Field("friendlyName", .text)]))), .optional("attributes", .freeObject)],
                   result: .object([Field("userId", .text)]), errors: [.alreadyExists], adminOnly: true) { params, context in
            let passkeys = params.json("passkeys")?.arrayValue?.compactMap { $0["friendlyName"]?.stringValue } ?? []
            let attributes = params.json("attributes").map { JSONSerializer.string($0) }
            let userId = try context.core.createUser(NewUser(
                userId: params.optionalString("userId"), email: params.optionalString("email"),
                phoneNumber: params.optionalString("phoneNumber"), password: params.optionalString("password"),
                birthDate: params.optionalString("birthDate"), passkeys: passkeys, attributes: attributes))
            return ["userId": .string(userId)]
        },
        MethodSpec("admin/createActivationCode", "Creates an activation code for a user, in the application's format.",
                   params: [Field("userId", .string(minLength: 1)), Wire.applicationId],
                   result: .object([Field("activationCode", .text), Field("expiresAt", CommonSchemas.time)]),
                   errors: [.notFound], adminOnly: true) { params, context in
            let created = try context.core.createActivationCode(userId: params.string("userId"),
                                                                applicationId: params.optionalString("applicationId"))
            return ["activationCode": .string(created.code), "expiresAt": Wire.time(created.expiresAt)]
        },
        MethodSpec("admin/getRegistration", "A registration as the server holds it.", params: [registrationId],
                   result: Wire.registrationSchema, errors: [.notFound], adminOnly: true) { params, context in
            Wire.registration(try context.core.registrationInfo(params.string("registrationId")))
        },
        MethodSpec("admin/listRegistrations", "Every registration of a user, oldest first.",
                   params: [Field("userId", .string(minLength: 1))],
                   result: .object([Field("registrations", .array(Wire.registrationSchema))]), errors: [.notFound],
                   adminOnly: true) { params, context in
            ["registrations": .array(try context.core.registrations(userId: params.string("userId")).map(Wire.registration))]
        },
        MethodSpec("admin/removeRegistration", "Removes a registration (a stolen phone); its tokens die.", params: [registrationId],
                   result: Wire.registrationSchema, errors: [.notFound], adminOnly: true) { params, context in
            Wire.registration(try context.core.removeRegistration(params.string("registrationId")))
        },
        MethodSpec("admin/lockRegistration", "Locks a registration (lockedByAdmin); its tokens die.", params: [registrationId],
                   result: Wire.registrationSchema, errors: [.notFound], adminOnly: true) { params, context in
            Wire.registration(try context.core.lockRegistration(params.string("registrationId")))
        },
        MethodSpec("admin/unlockRegistration", "Unlocks a registration and resets its PIN and recovery counters; never lifts removed.",
                   params: [registrationId], result: Wire.registrationSchema, errors: [.notFound], adminOnly: true) { params, context in
            Wire.registration(try context.core.unlockRegistration(params.string("registrationId")))
        },
        MethodSpec("admin/pushAuthentication", "Pushes an authentication with a context; the next authentication/start picks it up.",
                   params: [registrationId, .optional("contextTitle", .text), .optional("contextContent", .text),
                            .optional("contextMIME", .text), .optional("ttlSeconds", .integer(minimum: 1, maximum: Wire.maxDuration), "default 300")],
                   result: .object([Field("authenticationId", .text), Field("expiresAt", CommonSchemas.time)]),
                   errors: [.notFound], adminOnly: true) { params, context in
            let pushed = try context.core.pushAuthentication(NewPushedAuthentication(
                registrationId: params.string("registrationId"), contextTitle: params.optionalString("contextTitle"),
                contextContent: params.optionalString("contextContent"), contextMIME: params.optionalString("contextMIME"),
                ttlSeconds: params.optionalInt("ttlSeconds") ?? 300))
            return ["authenticationId": .string(pushed.authenticationId), "expiresAt": Wire.time(pushed.expiresAt)]
        },
        MethodSpec("admin/getAuthentication", "A pushed authentication's status.",
                   params: [Field("authenticationId", .string(minLength: 1))],
                   result: .object([Field("authenticationId", .text), Field("registrationId", .text),
                                    Field("status", .enumeration(PushedAuthenticationStatus.allCases.map(\.rawValue))),
                                    Field("contextTitle", .nullable(.text)), Field("decidedAt", .nullable(CommonSchemas.time))]),
                   errors: [.notFound], adminOnly: true) { params, context in
            let info = try context.core.pushedAuthentication(params.string("authenticationId"))
            return ["authenticationId": .string(info.authenticationId), "registrationId": .string(info.registrationId),
                    "status": .string(info.status.rawValue), "contextTitle": .string(orNull: info.contextTitle),
                    "decidedAt": Wire.time(info.decidedAt)]
        },
        MethodSpec("admin/completeVerification", "Ends onboarding identity verification; rejected removes the registration.",
                   params: [.optional("userId", .string(minLength: 1)), .optional("registrationId", .string(minLength: 1)),
                            Field("approved", .boolean)],
                   result: .object([Field("status", .enumeration(OnboardingStatus.allCases.map(\.rawValue)))]),
                   errors: [.notFound], adminOnly: true) { params, context in
            let userId = params.optionalString("userId")
            let registrationId = params.optionalString("registrationId")
            if (userId == nil) == (registrationId == nil) {
                throw DomainError.invalidParam("userId", "give exactly one of userId and registrationId")
            }
            let status = try context.core.completeVerification(userId: userId, registrationId: registrationId,
                                                               approved: params.bool("approved", default: false))
            return ["status": .string(status.rawValue)]
        },
        MethodSpec("audit/list", "Recorded security events, oldest first; limit keeps the newest.",
                   params: [.optional("userId", .text), .optional("registrationId", .text), .optional("limit", .integer(minimum: 0))],
                   result: .object([Field("events", .array(CommonSchemas.auditEvent))]), adminOnly: true) { params, context in
            let events = try context.core.auditEvents(userId: params.optionalString("userId"),
                                                      registrationId: params.optionalString("registrationId"),
                                                      limit: params.optionalIntValue("limit"))
            return ["events": .array(events.map(Notifications.auditJSON))]
        },
    ]
}
