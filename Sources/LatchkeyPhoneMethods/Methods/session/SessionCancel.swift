import LatchkeyCore
import LatchkeyDevice
import LatchkeyJSON
import LatchkeyServer
import LatchkeyWire

enum SessionCancel: DeviceCall {
    static let declaration = MethodDeclaration(
        "session/cancel", "Cancels the operation in progress; a pushed authentication in hand is rejected.",
        description: """
            Cancels the device's operation in progress (an activation, authentication or add-or-update); a pushed \
            authentication in hand becomes rejected. Answers whether there was one to cancel.
            """,
        errors: [.notFound])
    static let result = Codec.member("cancelled", .bool)
    static func call(_ device: Device) throws -> Bool { try device.cancelSession() }
}
