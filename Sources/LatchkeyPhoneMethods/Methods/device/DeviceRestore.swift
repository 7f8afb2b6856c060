import LatchkeyContract
import LatchkeyServer
import LatchkeySimulator
import LatchkeyWire

enum DeviceRestore: RPCMethod {
    static let declaration = MethodDeclaration(
        "device/restore", "Makes a new device holding what the backup carries.",
        description: """
            Creates a new simulated device from a backup: it holds the backup's recovery data but no activation, so it \
            continues with recovery/start and recovery/finish.
            """,
        errors: [.notFound, .alreadyExists])
    struct Params: WireParams {
        let backupId: String
        let deviceId: String?
        let hardware: DeviceFamily.Hardware
        static let wire = (
            backupId: WireMember.required("backupId", .identifier), deviceId: WireMember.optional("deviceId", .newIdentifier, "the new device"),
            hardware: WireMember.inline(DeviceFamily.Hardware.self)
        )
    }
    static let result = DeviceFamily.deviceIdResult
    static func handle(_ params: Params, _ context: CallContext) throws -> String {
        let hardware = params.hardware
        return try context.devices.restore(
            backupId: params.backupId, NewDevice(deviceId: params.deviceId, biometry: hardware.biometry, iCloudKeychain: hardware.iCloudKeychain))
    }
}
