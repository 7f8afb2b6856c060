import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum ServerOnboardingStatus: ProcessCall {
    static let declaration = MethodDeclaration(
        "server/onboarding/status", "Where an onboarding process stands.",
        description: """
            The process's status as onboarding/status answers it (activationInProgress, verificationInProgress, \
            failed, finished); unknown ids answer onboardingNotRunning.
            """,
        errors: [.onboardingNotRunning])
    static let result = Codec.member("status", .enumeration(LatchkeyContract.OnboardingStatus.self))
    static func call(_ session: ServerSession, processId: String) throws -> LatchkeyContract.OnboardingStatus {
        try session.onboardingStatus(processId: processId)
    }
}
