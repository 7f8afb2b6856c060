import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeyJSON
import LatchkeyServer
import LatchkeyWire

enum OnboardingStatus: DeviceCall {
    static let declaration = MethodDeclaration(
        "onboarding/status", "Where the device's onboarding process stands.",
        description: """
            Where the device's onboarding process stands: activationInProgress, verificationInProgress, failed or \
            finished. A finished or failed answer ends the device's process.
            """,
        errors: [.notFound, .onboardingNotRunning])
    static let result = Codec.member("status", .enumeration(LatchkeyContract.OnboardingStatus.self))
    static func call(_ device: Device) throws -> LatchkeyContract.OnboardingStatus { try device.onboardingStatus() }
}
