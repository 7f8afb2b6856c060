import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum ServerOnboardingResendOtp: ProcessCall {
    static let declaration = MethodDeclaration(
        "server/onboarding/resendOtp", "Sends a new OTP for the process; the previous one dies.",
        description: """
            Sends a fresh OTP to the same address; at most one every 30 s (resendLimited with retryAfterSeconds). The \
            previous OTP stops working; wrong tries keep counting.
            """,
        errors: [.onboardingNotRunning, .onboardingFailed, .resendLimited])
    typealias Result = EmptyResult
    static func call(_ session: ServerSession, processId: String) throws -> EmptyResult {
        try session.resendOnboardingOtp(processId: processId)
        return EmptyResult()
    }
}
