import LatchkeyCore
import LatchkeyDevice
import LatchkeyServer

enum DeviceIsActivatedLocally: DeviceCall {
    static let declaration = MethodDeclaration(
        "device/isActivatedLocally", "Whether the device holds an activation (no server call).",
        description: """
            Whether the simulated device holds an activation, read from its own state with no server call.
            """,
        errors: [.notFound])
    static let result = DeviceFamily.activated
    static func call(_ device: Device) throws -> Bool { try device.isActivatedLocally }
}
