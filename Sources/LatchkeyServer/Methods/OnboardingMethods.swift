import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

/// Identity-based onboarding with an OTP, on a simulated device.
enum OnboardingMethods {
    static let all: [any RPCMethod.Type] = [Start.self, HasActiveProcess.self, Status.self, Activate.self, ResendOtp.self, Cancel.self]

    struct Credentials: WireReadable {
        var credentials = OnboardingCredentials()
        static let schemaName: String? = "OnboardingCredentials"
        static let fields: [WireField<Self>] = [
            .optional("email", \.credentials.email, .text), .optional("phoneNumber", \.credentials.phoneNumber, .text),
            .optional("userId", \.credentials.userId, .text), .optional("birthDate", \.credentials.birthDate, .text, "YYYY-MM-DD, with userId"),
        ]
    }

    enum Start: RPCMethod {
        static let declaration = MethodDeclaration(
            "onboarding/start", "Starts onboarding from identity; the same answer whether or not it matches a user.",
            errors: [.notFound, .onboardingCannotActivate, .onboardingInProgress])
        struct Params: WireReadable {
            var deviceId = ""
            var credentials = Credentials()
            var applicationId: String?
            var canRestoreSession = false
            static let fields: [WireField<Self>] = [
                .deviceId(\.deviceId), .required("credentials", \.credentials, .object(Credentials.self)), .applicationId(\.applicationId),
                .defaulted("canRestoreSession", \.canRestoreSession, .bool, default: false, "keep the process across restarts"),
            ]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> EmptyResult {
            try context.core.startOnboarding(deviceId: params.deviceId, credentials: params.credentials.credentials,
                                             applicationId: params.applicationId, canRestoreSession: params.canRestoreSession)
            return EmptyResult()
        }
    }

    enum HasActiveProcess: RPCMethod {
        static let declaration = MethodDeclaration(
            "onboarding/hasActiveProcess", "Whether an onboarding process runs on the device.",
            errors: [.notFound])
        static let result = Codec.member("active", .bool)
        static func handle(_ params: DeviceMethods.DeviceParams, _ context: CallContext) throws -> Bool {
            try context.core.hasActiveOnboarding(deviceId: params.deviceId)
        }
    }

    enum Status: RPCMethod {
        static let declaration = MethodDeclaration(
            "onboarding/status", "Where the device's onboarding process stands.",
            errors: [.notFound, .onboardingNotRunning])
        static let result = Codec.member("status", .enumeration(OnboardingStatus.self))
        static func handle(_ params: DeviceMethods.DeviceParams, _ context: CallContext) throws -> OnboardingStatus {
            try context.core.onboardingStatus(deviceId: params.deviceId)
        }
    }

    enum Activate: RPCMethod {
        static let declaration = MethodDeclaration(
            "onboarding/activate", "Checks the OTP and opens the activation; activation/finish completes it.",
            errors: [.notFound, .onboardingNotRunning, .onboardingFailed, .onboardingCannotActivate, .otpInvalid, .otpExpired])
        struct Params: WireReadable {
            var deviceId = ""
            var otp = ""
            var activationName: String?
            static let fields: [WireField<Self>] = [
                .deviceId(\.deviceId), .required("otp", \.otp, .text), .optional("activationName", \.activationName, .text),
            ]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> ActivationOffer {
            try context.core.activateOnboarding(deviceId: params.deviceId, otp: params.otp, activationName: params.activationName)
        }
    }

    enum ResendOtp: RPCMethod {
        static let declaration = MethodDeclaration(
            "onboarding/resendOtp", "Sends a new OTP; the previous one dies.",
            errors: [.notFound, .onboardingNotRunning, .onboardingFailed, .resendLimited])
        static func handle(_ params: DeviceMethods.DeviceParams, _ context: CallContext) throws -> EmptyResult {
            try context.core.resendOnboardingOtp(deviceId: params.deviceId)
            return EmptyResult()
        }
    }

    enum Cancel: RPCMethod {
        static let declaration = MethodDeclaration(
            "onboarding/cancel", "Cancels the device's onboarding process.",
            errors: [.notFound, .onboardingNotRunning])
        struct Params: WireReadable {
            var deviceId = ""
            var forceCancel = true
            static let fields: [WireField<Self>] = [.deviceId(\.deviceId), .defaulted("forceCancel", \.forceCancel, .bool, default: true)]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> EmptyResult {
            try context.core.cancelOnboarding(deviceId: params.deviceId, forceCancel: params.forceCancel)
            return EmptyResult()
        }
    }
}
