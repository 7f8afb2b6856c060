import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyServer
import LatchkeySimulator

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
        var deviceId: String?
        var biometry = Biometry.faceId
        var iCloudKeychain = true
        static let fields: [WireField<Self>] =
            [
                .required("backupId", \.backupId, .identifier), .optional("deviceId", \.deviceId, .identifier, "the new device"),
            ] + DeviceFamily.hardware(\.biometry, \.iCloudKeychain)
    }
    static let result = DeviceFamily.deviceIdResult
    static func handle(_ params: Params, _ context: CallContext) throws -> String {
        try context.devices.restore(
            backupId: params.backupId, NewDevice(deviceId: params.deviceId, biometry: params.biometry, iCloudKeychain: params.iCloudKeychain))
    }
}
