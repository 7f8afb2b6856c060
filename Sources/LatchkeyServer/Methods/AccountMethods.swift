import LatchkeyCore
import LatchkeyJSON

/// Users, sessions, grace-period account recovery and verification-code reset.
enum AccountMethods {
    static let sessionId = Field("sessionId", .string(minLength: 1))
    static let accountRecoveryResult: Schema = .object([Field("accountRecovery", CommonSchemas.accountRecovery)])
    static let passkeySchema: Schema = .named("Passkey", .object([Field("id", .text), Field("friendlyName", .text),
                                                                  Field("createdAt", CommonSchemas.time)]))
    static let resetIdentifier: [Field] = [.optional("email", .text, "email channel"), .optional("phoneNumber", .text, "SMS channel, E.164")]

    static func recovery(_ status: AccountRecoveryStatus?) -> JSON {
        status.map(Notifications.accountRecoveryJSON) ?? .null
    }

    static func passkeys(_ list: [Passkey]) -> JSON {
        .array(list.map { ["id": .string($0.id), "friendlyName": .string($0.friendlyName), "createdAt": Wire.time($0.createdAt)] })
    }

    /// Exactly one of `email` and `phoneNumber`.
    static func resetIdentifier(_ params: Params) throws -> ResetIdentifier {
        switch (params.optionalString("email"), params.optionalString("phoneNumber")) {
        case (let email?, nil): return .email(email)
        case (nil, let phone?): return .phoneNumber(phone)
        case (nil, nil): throw DomainError.invalidParam("email", "is required when phoneNumber is absent (give one of them)")
        default: throw DomainError.invalidParam("phoneNumber", "cannot be given together with email (give one of them)")
        }
    }

    static let codeErrors: [ErrorReason] = [.verificationCodeInvalid, .verificationCodeExpired]

    static let all: [MethodSpec] = [
        MethodSpec("user/login", "Signs in by email or userId; a new session cancels a grace period or insecure window (state 2, reason 2).",
                   params: [.optional("email", .text), .optional("userId", .text), Field("password", .text)],
                   result: .object([Field("sessionId", .text), Field("uid", .text)]),
                   errors: [.invalidCredentials, .rateLimited]) { params, context in
            let identifier: LoginIdentifier
            switch (params.optionalString("email"), params.optionalString("userId")) {
            case (let email?, nil): identifier = .email(email)
            case (nil, let userId?): identifier = .userId(userId)
            case (nil, nil): throw DomainError.invalidParam("email", "is required when userId is absent (give one of them)")
            default: throw DomainError.invalidParam("userId", "cannot be given together with email (give one of them)")
            }
            let session = try context.core.login(identifier, password: params.string("password"))
            return ["sessionId": .string(session.sessionId), "uid": .string(session.uid)]
        },
        MethodSpec("user/logout", "Ends the session, or every session of the user with all.",
                   params: [sessionId, .optional("all", .boolean, "default false")], result: CommonSchemas.empty,
                   errors: [.userSessionInvalid]) { params, context in
            try context.core.logout(sessionId: params.string("sessionId"), all: params.bool("all", default: false))
            return .object(JSONObject())
        },
        MethodSpec("user/get", "The signed-in user, with accountRecovery (null before the first start).", params: [sessionId],
                   result: .object([Field("uid", .text), Field("email", .nullable(.text)), Field("phoneNumber", .nullable(.text)),
                                    Field("accountRecovery", .nullable(CommonSchemas.accountRecovery))]),
                   errors: [.userSessionInvalid]) { params, context in
            let profile = try context.core.profile(sessionId: params.string("sessionId"))
            return ["uid": .string(profile.uid), "email": .string(orNull: profile.email),
                    "phoneNumber": .string(orNull: profile.phoneNumber), "accountRecovery": recovery(profile.accountRecovery)]
        },
        MethodSpec("user/passkeys", "The signed-in user's passkeys.", params: [sessionId],
                   result: .object([Field("passkeys", .array(passkeySchema))]), errors: [.userSessionInvalid]) { params, context in
            ["passkeys": passkeys(try context.core.passkeys(sessionId: params.string("sessionId")))]
        },
        MethodSpec("accountRecovery/start", "Asks for a password reset: a grace period starts (from states 0, 2, 4).", params: [sessionId],
                   result: accountRecoveryResult, errors: [.userSessionInvalid, .accountRecoveryNotAllowed]) { params, context in
            ["accountRecovery": recovery(try context.core.startAccountRecovery(sessionId: params.string("sessionId")))]
        },
        MethodSpec("accountRecovery/status", "The status and the settings-screen copy for it.", params: [sessionId],
                   result: .object([Field("accountRecovery", .nullable(CommonSchemas.accountRecovery)),
                                    Field("settingsItem", .object([Field("title", .text), Field("subtitle", .text),
                                                                   Field("canCancel", .boolean)]))]),
                   errors: [.userSessionInvalid]) { params, context in
            let (status, item) = try context.core.accountRecoveryStatus(sessionId: params.string("sessionId"))
            return ["accountRecovery": recovery(status),
                    "settingsItem": ["title": .string(item.title), "subtitle": .string(item.subtitle), "canCancel": .bool(item.canCancel)]]
        },
        MethodSpec("accountRecovery/cancel", "Cancels a grace period (state 2, reason 1).", params: [sessionId],
                   result: accountRecoveryResult, errors: [.userSessionInvalid, .accountRecoveryNotAllowed]) { params, context in
            ["accountRecovery": recovery(try context.core.cancelAccountRecovery(sessionId: params.string("sessionId")))]
        },
        MethodSpec("accountRecovery/resetPassword", "Sets a new password without the old one (state 3 only); back to state 0.",
                   params: [sessionId, Field("newPassword", .text)], result: accountRecoveryResult,
                   errors: [.userSessionInvalid, .accountRecoveryNotAllowed, .policyViolation]) { params, context in
            ["accountRecovery": recovery(try context.core.resetPasswordInWindow(sessionId: params.string("sessionId"),
                                                                                newPassword: params.string("newPassword")))]
        },
        MethodSpec("reset/requestAccountRecovery", "Sends an account-recovery code and deep link (same answer for unknown users).",
                   params: resetIdentifier + [Field("redirectUrl", .text), Wire.applicationId], result: CommonSchemas.empty,
                   errors: [.notFound]) { params, context in
            try context.core.checkRedirectUrl(params.string("redirectUrl"), applicationId: params.optionalString("applicationId"))
            try context.core.requestReset(.accountRecovery, try resetIdentifier(params), redirectUrl: params.string("redirectUrl"),
                                          applicationId: params.optionalString("applicationId"))
            return .object(JSONObject())
        },
        MethodSpec("reset/requestPasswordReset", "Sends a password-reset code and link (same answer for unknown users).",
                   params: resetIdentifier + [Field("redirectUrl", .text), Wire.applicationId], result: CommonSchemas.empty,
                   errors: [.notFound]) { params, context in
            try context.core.checkRedirectUrl(params.string("redirectUrl"), applicationId: params.optionalString("applicationId"))
            try context.core.requestReset(.passwordReset, try resetIdentifier(params), redirectUrl: params.string("redirectUrl"),
                                          applicationId: params.optionalString("applicationId"))
            return .object(JSONObject())
        },
        MethodSpec("reset/updatePassword", "Sets a new password with a verification code; every session of the user ends.",
                   params: resetIdentifier + [Field("verificationCode", .text), Field("password", .text)], result: CommonSchemas.empty,
                   errors: [.policyViolation] + codeErrors) { params, context in
            try context.core.resetPassword(try resetIdentifier(params), code: params.string("verificationCode"),
                                           password: params.string("password"))
            return .object(JSONObject())
        },
        MethodSpec("reset/resetPasskeys", "Removes every passkey and registers the new one, with an account-recovery code.",
                   params: resetIdentifier + [Field("verificationCode", .text), .optional("passkey", .object([Field("friendlyName", .text)]))],
                   result: .object([Field("passkeys", .array(passkeySchema))]), errors: codeErrors) { params, context in
            let list = try context.core.resetPasskeys(try resetIdentifier(params), code: params.string("verificationCode"),
                                                      newPasskey: params.optionalNested("passkey")?.optionalString("friendlyName"))
            return ["passkeys": passkeys(list)]
        },
    ]
}
