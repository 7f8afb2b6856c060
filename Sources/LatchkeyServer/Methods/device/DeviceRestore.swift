import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeySimulator
import LatchkeyJSON
import LatchkeyRPC

enum DeviceRestore: RPCMethod {
    static let declaration = MethodDeclaration(
        "device/restore", "Makes a new device holding what the backup carries.",
        description: """
        Creates a new simulated device from a backup: it holds the backup's recovery data but no activation, so it \
        continues with recovery/start and recovery/finish.
        """,
        errors: [.notFound, .alreadyExists])
    struct Params: WireReadable {
        var backupId = ""
        var device = NewDevice()
        static let fields: [WireField<Self>] = [
            .required("backupId", \.backupId, .identifier), .optional("deviceId", \.device.deviceId, .identifier, "the new device"),
        ] + DeviceFamily.hardware(\.device.biometry, \.device.iCloudKeychain)
    }
    static let result = DeviceFamily.deviceIdResult
    static func handle(_ params: Params, _ context: CallContext) throws -> String {
        try context.devices.restore(backupId: params.backupId, params.device)
    }
}
