import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum ServerOnboardingCancel: ProcessCall {
    static let declaration = MethodDeclaration(
        "server/onboarding/cancel", "Ends a running process, removing the pending registration it made.",
        description: """
            Ends a process that is activationInProgress or verificationInProgress (removing the pending registration \
            it made); a failed or expired one answers onboardingFailed, an unknown or finished one \
            onboardingNotRunning.
            """,
        errors: [.onboardingNotRunning, .onboardingFailed])
    typealias Result = EmptyResult
    static func call(_ session: ServerSession, processId: String) throws -> EmptyResult {
        try session.cancelOnboarding(processId: processId, caller: nil)
        return EmptyResult()
    }
}
