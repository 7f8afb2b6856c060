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
        static let name = "onboarding/start"
        static let summary = "Starts onboarding from identity; the same answer whether or not it matches a user."
        static let errors: [ErrorReason] = [.notFound, .onboardingCannotActivate, .onboardingInProgress]
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
        static let name = "onboarding/hasActiveProcess"
        static let summary = "Whether an onboarding process runs on the device."
        static let errors: [ErrorReason] = [.notFound]
        struct Result: WireObject {
            var active: Bool
            static let fields: [WireField<Self>] = [.required("active", \.active, .bool)]
        }
        static func handle(_ params: DeviceMethods.DeviceParams, _ context: CallContext) throws -> Result {
            Result(active: try context.core.hasActiveOnboarding(deviceId: params.deviceId))
        }
    }

    enum Status: RPCMethod {
        static let name = "onboarding/status"
        static let summary = "Where the device's onboarding process stands."
        static let errors: [ErrorReason] = [.notFound, .onboardingNotRunning]
        struct Result: WireObject {
            var status: OnboardingStatus
            static let fields: [WireField<Self>] = [.required("status", \.status, .enumeration(OnboardingStatus.self))]
        }
        static func handle(_ params: DeviceMethods.DeviceParams, _ context: CallContext) throws -> Result {
            Result(status: try context.core.onboardingStatus(deviceId: params.deviceId))
        }
    }

    enum Activate: RPCMethod {
        static let name = "onboarding/activate"
        static let summary = "Checks the OTP and opens the activation; activation/finish completes it."
        static let errors: [ErrorReason] = [.notFound, .onboardingNotRunning, .onboardingFailed, .onboardingCannotActivate, .otpInvalid,
                                            .otpExpired]
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
        static let name = "onboarding/resendOtp"
        static let summary = "Sends a new OTP; the previous one dies."
        static let errors: [ErrorReason] = [.notFound, .onboardingNotRunning, .onboardingFailed, .resendLimited]
        static func handle(_ params: DeviceMethods.DeviceParams, _ context: CallContext) throws -> EmptyResult {
            try context.core.resendOnboardingOtp(deviceId: params.deviceId)
            return EmptyResult()
        }
    }

    enum Cancel: RPCMethod {
        static let name = "onboarding/cancel"
        static let summary = "Cancels the device's onboarding process."
        static let errors: [ErrorReason] = [.notFound, .onboardingNotRunning]
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
