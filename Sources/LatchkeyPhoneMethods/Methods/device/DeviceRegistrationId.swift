import LatchkeyDevice
import LatchkeyJSON
import LatchkeyServer
import LatchkeyWire

enum DeviceRegistrationId: DeviceCall {
    static let declaration = MethodDeclaration(
        "device/registrationId", "The registration the device holds (null when none).",
        description: "The registration the simulated device holds, or null when it holds none (device state only).",
        errors: [.notFound])
    static let result = Codec.member("registrationId", .nullable(.text))
    static func call(_ device: Device) throws -> String? { try device.registrationId }
}
