import LatchkeyDevice
import LatchkeyJSON
import LatchkeyServer
import LatchkeySimulator
import LatchkeyWire

enum DeviceActivatedRecoveryMethods: DeviceCall {
    static let declaration = MethodDeclaration(
        "device/activatedRecoveryMethods", "The recovery methods the device holds.",
        description: "The recovery methods the simulated device holds: [\"backup\"] or none.", errors: [.notFound])
    static let result = Codec.member("methods", .recoveryMethods)
    static func call(_ device: Device) throws -> [String] { try device.isRecoveryActivated ? ["backup"] : [] }
}
