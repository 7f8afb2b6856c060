import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

enum ServerOnboardingActivate: RPCMethod {
    static let declaration = MethodDeclaration(
        "server/onboarding/activate", "Checks the OTP and opens the activation; server/activation/commit completes it.",
        description: """
            Checks the OTP (wrong tries counted; otpExpired after its lifetime) and opens an activation as \
            server/activation/prepare does; the registration made by server/activation/commit waits in \
            verificationPending until admin/completeVerification.
            """,
        errors: [.onboardingNotRunning, .onboardingFailed, .onboardingCannotActivate, .otpInvalid, .otpExpired])
    struct Params: WireReadable {
        var process = ProcessParams()
        var otp = ""
        static let fields: [WireField<Self>] = ProcessParams.fields.map { $0.lifted(\.process) } + [.required("otp", \.otp, .text)]
    }
    static let result = Codec.preparedActivation
    static func handle(_ params: Params, _ context: CallContext) throws -> KeyRequest {
        try context.core.session { try $0.activateOnboarding(processId: params.process.processId, otp: params.otp, caller: nil) }
    }
}
