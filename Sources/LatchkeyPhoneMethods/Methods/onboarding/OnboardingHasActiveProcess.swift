import LatchkeyDevice
import LatchkeyJSON
import LatchkeyServer
import LatchkeySimulator
import LatchkeyWire

enum OnboardingHasActiveProcess: DeviceCall {
    static let declaration = MethodDeclaration(
        "onboarding/hasActiveProcess", "Whether an onboarding process runs on the device.",
        description: "Whether the device remembers an onboarding process, from its own state with no server call.",
        errors: [.notFound])
    static let result = Codec.member("active", .bool)
    static func call(_ device: Device) throws -> Bool { try device.hasActiveOnboarding }
}
