import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyServer
import LatchkeySimulator

enum OnboardingActivate: RPCMethod {
    static let declaration = MethodDeclaration(
        "onboarding/activate", "Checks the OTP and opens the activation; activation/finish completes it.",
        description: """
            Checks the onboarding OTP and opens the activation, answering as activation/start does; activation/finish \
            completes it and the registration stays verificationPending until admin/completeVerification. The fifth \
            wrong OTP fails the process.
            """,
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
        try context.devices.on(params.deviceId) { try $0.activateOnboarding(otp: params.otp, activationName: params.activationName) }
    }
}
