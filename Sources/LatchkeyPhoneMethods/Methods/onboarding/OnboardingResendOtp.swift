import LatchkeyCore
import LatchkeyDevice
import LatchkeyServer
import LatchkeyWire

enum OnboardingResendOtp: DeviceCall {
    static let declaration = MethodDeclaration(
        "onboarding/resendOtp", "Sends a new OTP; the previous one dies.",
        description: """
            Sends a new onboarding OTP; the previous one stops working. Wrong tries are not reset, and a resend within \
            30 s of the last send answers resendLimited.
            """,
        errors: [.notFound, .onboardingNotRunning, .onboardingFailed, .resendLimited])
    typealias Result = EmptyResult
    static func call(_ device: Device) throws -> EmptyResult {
        try device.resendOnboardingOtp()
        return EmptyResult()
    }
}
