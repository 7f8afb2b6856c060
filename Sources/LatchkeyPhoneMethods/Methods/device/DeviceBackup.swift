import LatchkeyDevice
import LatchkeyJSON
import LatchkeyServer
import LatchkeySimulator
import LatchkeyWire

enum DeviceBackup: RPCMethod {
    static let declaration = MethodDeclaration(
        "device/backup", "Backs up the device: recovery data yes, this-device-only activation keys never.",
        description: """
            Backs the simulated device up (iCloud, or a computer, encrypted or not) and answers a backupId for \
            device/restore. Recovery data travels; this-device-only activation keys never do. iCloud needs iCloud \
            Keychain.
            """,
        errors: [.notFound, .iCloudKeychainDisabled])
    struct Params: WireParams {
        let deviceId: String
        let kind: BackupKind
        static let wire = (deviceId: WireMember.deviceId, kind: WireMember.required("kind", .enumeration(BackupKind.self)))
    }
    static let result = Codec.member("backupId", .text)
    static func handle(_ params: Params, _ context: CallContext) throws -> String {
        try context.devices.backup(deviceId: params.deviceId, kind: params.kind)
    }
}
