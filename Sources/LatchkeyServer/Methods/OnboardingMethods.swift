import LatchkeyCore
import LatchkeyJSON

/// Identity-based onboarding with an OTP.
enum OnboardingMethods {
    static let credentials: Schema = .named("OnboardingCredentials", .object([
        Field.optional("email", .text), Field.optional("phoneNumber", .text), Field.optional("userId", .text),
        Field.optional("birthDate", .text, "YYYY-MM-DD, with userId"),
    ]))

    static let all: [MethodSpec] = [
        MethodSpec("onboarding/start", "Starts onboarding from identity; the same answer whether or not it matches a user.",
                   params: [Wire.deviceId, Field("credentials", credentials), Wire.applicationId,
                            .optional("canRestoreSession", .boolean, "keep the process across restarts (default false)")],
                   result: CommonSchemas.empty, errors: [.notFound, .onboardingCannotActivate, .onboardingInProgress]) { params, context in
            let given = params.nested("credentials")
            try context.core.startOnboarding(
                deviceId: params.string("deviceId"),
                credentials: OnboardingCredentials(email: given.optionalString("email"), phoneNumber: given.optionalString("phoneNumber"),
                                                   userId: given.optionalString("userId"), birthDate: given.optionalString("birthDate")),
                applicationId: params.optionalString("applicationId"), canRestoreSession: params.bool("canRestoreSession", default: false))
            return .object(JSONObject())
        },
        MethodSpec("onboarding/hasActiveProcess", "Whether an onboarding process runs on the device.", params: [Wire.deviceId],
                   result: .object([Field("active", .boolean)]), errors: [.notFound]) { params, context in
            ["active": .bool(try context.core.hasActiveOnboarding(deviceId: params.string("deviceId")))]
        },
        MethodSpec("onboarding/status", "Where the device's onboarding process stands.", params: [Wire.deviceId],
                   result: .object([Field("status", .enumeration(OnboardingStatus.allCases.map(\.rawValue)))]),
                   errors: [.notFound, .onboardingNotRunning]) { params, context in
            ["status": .string(try context.core.onboardingStatus(deviceId: params.string("deviceId")).rawValue)]
        },
        MethodSpec("onboarding/activate", "Checks the OTP and opens the activation; activation/finish completes it.",
                   params: [Wire.deviceId, Field("otp", .text), .optional("activationName", .text)], result: Wire.offerSchema,
                   errors: [.notFound, .onboardingNotRunning, .onboardingFailed, .onboardingCannotActivate, .otpInvalid, .otpExpired]) { params, context in
            Wire.offer(try context.core.activateOnboarding(deviceId: params.string("deviceId"), otp: params.string("otp"),
                                                           activationName: params.optionalString("activationName")))
        },
        MethodSpec("onboarding/resendOtp", "Sends a new OTP; the previous one dies.", params: [Wire.deviceId], result: CommonSchemas.empty,
                   errors: [.notFound, .onboardingNotRunning, .onboardingFailed, .resendLimited]) { params, context in
            try context.core.resendOnboardingOtp(deviceId: params.string("deviceId"))
            return .object(JSONObject())
        },
        MethodSpec("onboarding/cancel", "Cancels the device's onboarding process.",
                   params: [Wire.deviceId, .optional("forceCancel", .boolean, "default true")], result: CommonSchemas.empty,
                   errors: [.notFound, .onboardingNotRunning]) { params, context in
            try context.core.cancelOnboarding(deviceId: params.string("deviceId"), forceCancel: params.bool("forceCancel", default: true))
            return .object(JSONObject())
        },
    ]
}
