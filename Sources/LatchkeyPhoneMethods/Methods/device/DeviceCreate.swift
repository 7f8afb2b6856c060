import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyServer
import LatchkeySimulator

enum DeviceCreate: RPCMethod {
    static let declaration = MethodDeclaration(
        "device/create", "Creates a simulated phone (deviceId generated when absent).",
        description: """
            Creates a simulated phone with its biometry (none, touchId or faceId), iCloud Keychain setting and name; \
            deviceId is generated when absent. Every device-side method then takes this deviceId.
            """,
        errors: [.alreadyExists])
    struct Params: WireReadable {
        var device = NewDevice()
        static let fields: [WireField<Self>] =
            [.optional("deviceId", \.device.deviceId, .identifier)]
            + DeviceFamily.hardware(\.device.biometry, \.device.iCloudKeychain) + [.optional("name", \.device.name, .text)]
    }
    static let result = DeviceFamily.deviceIdResult
    static func handle(_ params: Params, _ context: CallContext) throws -> String {
        try context.devices.create(params.device)
    }
}
