import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum ServerOnboardingActivate: RPCMethod {
    static let declaration = MethodDeclaration(
        "server/onboarding/activate", "Checks the OTP and opens the activation; server/activation/commit completes it.",
        description: """
            Checks the OTP (wrong tries counted; otpExpired after its lifetime) and opens an activation as \
            server/activation/prepare does; the registration made by server/activation/commit waits in \
            verificationPending until admin/completeVerification.
            """,
        errors: [.onboardingNotRunning, .onboardingFailed, .onboardingCannotActivate, .otpInvalid, .otpExpired])
    struct Params: WireParams {
        let process: ProcessParams
        let otp: String
        static let wire = (process: WireMember.inline(ProcessParams.self), otp: WireMember.required("otp", .text))
    }
    static let result = Codec.preparedActivation
    static func handle(_ params: Params, _ context: CallContext) throws -> KeyRequest {
        try context.core.session { try $0.activateOnboarding(processId: params.process.processId, otp: params.otp, caller: nil) }
    }
}
