import LatchkeyDevice
import LatchkeyServer
import LatchkeySimulator

enum DeviceIsRecoveryActivated: DeviceCall {
    static let declaration = MethodDeclaration(
        "device/isRecoveryActivated", "Whether the device holds recovery data.",
        description: """
            Whether the simulated device holds backup-code recovery data (set by recovery/finishAddOrUpdate, consumed \
            by recovery/finish).
            """,
        errors: [.notFound])
    static let result = DeviceFamily.activated
    static func call(_ device: Device) throws -> Bool { try device.isRecoveryActivated }
}
