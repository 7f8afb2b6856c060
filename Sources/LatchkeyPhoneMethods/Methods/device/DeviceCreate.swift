import LatchkeyContract
import LatchkeyDevice
import LatchkeyServer
import LatchkeySimulator
import LatchkeyWire

enum DeviceCreate: RPCMethod {
    static let declaration = MethodDeclaration(
        "device/create", "Creates a simulated phone (deviceId generated when absent).",
        description: """
            Creates a simulated phone with its biometry (none, touchId or faceId), iCloud Keychain setting and name; \
            deviceId is generated when absent. Every device-side method then takes this deviceId.
            """,
        errors: [.alreadyExists])
    struct Params: WireParams {
        let deviceId: String?
        let hardware: DeviceFamily.Hardware
        let name: String?
        static let wire = (
            deviceId: WireMember.optional("deviceId", .newIdentifier), hardware: WireMember.inline(DeviceFamily.Hardware.self),
            name: WireMember.optional("name", .text)
        )
    }
    static let result = DeviceFamily.deviceIdResult
    static func handle(_ params: Params, _ context: CallContext) throws -> String {
        try context.devices.create(
            NewDevice(
                deviceId: params.deviceId, biometry: params.hardware.biometry, iCloudKeychain: params.hardware.iCloudKeychain,
                name: params.name))
    }
}
