import LatchkeyCore
import LatchkeyDevice
import LatchkeyServer
import LatchkeySimulator
import LatchkeyWire

enum OnboardingActivate: RPCMethod {
    static let declaration = MethodDeclaration(
        "onboarding/activate", "Checks the OTP and opens the activation; activation/finish completes it.",
        description: """
            Checks the onboarding OTP and opens the activation, answering as activation/start does; activation/finish \
            completes it and the registration stays verificationPending until admin/completeVerification. The fifth \
            wrong OTP fails the process.
            """,
        errors: [.notFound, .onboardingNotRunning, .onboardingFailed, .onboardingCannotActivate, .otpInvalid, .otpExpired])
    struct Params: WireParams {
        let deviceId: String
        let otp: String
        let activationName: String?
        static let wire = (
            deviceId: WireMember.deviceId, otp: WireMember.required("otp", .text), activationName: WireMember.optional("activationName", .text)
        )
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> ActivationOffer {
        try context.devices.on(params.deviceId) { try $0.activateOnboarding(otp: params.otp, activationName: params.activationName) }
    }
}
