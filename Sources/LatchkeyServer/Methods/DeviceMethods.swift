import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeySimulator
import LatchkeyJSON
import LatchkeyRPC

/// The simulated phone's local state, and its backups.
enum DeviceMethods {
    // Concrete types here, so each entry's decoding and encoding is specialised (no generic
    // metadata lookups per call).
    static let all: [MethodEntry] = [
        .init(Create.self), .init(SetBiometricOutcome.self), .init(DeviceChangeBiometricEnrolment.self),
        .init(IsActivatedLocally.self), .init(RegistrationId.self),
        .init(IsRecoveryActivated.self), .init(ActivatedRecoveryMethods.self), .init(Backup.self), .init(Restore.self),
    ]

    /// `{deviceId}` as a result.
    static let deviceIdResult = Codec.member("deviceId", Codec<String>.text)
    /// `{activated}`.
    static let activated = Codec.member("activated", Codec<Bool>.bool)

    /// The hardware a new simulated phone has.
    static func hardware<Root>(_ biometry: WritableKeyPath<Root, Biometry> & Sendable,
                               _ iCloudKeychain: WritableKeyPath<Root, Bool> & Sendable) -> [WireField<Root>] {
        [.defaulted("biometry", biometry, .enumeration(Biometry.self), default: .faceId),
         .defaulted("iCloudKeychain", iCloudKeychain, .bool, default: true)]
    }

    enum Create: RPCMethod {
        static let declaration = MethodDeclaration(
            "device/create", "Creates a simulated phone (deviceId generated when absent).",
            description: """
            Creates a simulated phone with its biometry (none, touchId or faceId), iCloud Keychain setting and name; \
            deviceId is generated when absent. Every device-side method then takes this deviceId.
            """,
            errors: [.alreadyExists])
        struct Params: WireReadable {
            var device = NewDevice()
            static let fields: [WireField<Self>] = [.optional("deviceId", \.device.deviceId, .identifier)]
                + hardware(\.device.biometry, \.device.iCloudKeychain) + [.optional("name", \.device.name, .text)]
        }
        static let result = deviceIdResult
        static func handle(_ params: Params, _ context: CallContext) throws -> String {
            try context.devices.create(params.device)
        }
    }

    enum SetBiometricOutcome: RPCMethod {
        static let declaration = MethodDeclaration(
            "device/setBiometricOutcome", "Sets what the biometric sensor answers from now on (sticks until changed).",
            description: """
            Sets what the simulated biometric sensor answers from now on: match, noMatch (the device refuses, \
            biometryFailed) or cancel (biometryCancelled). Sticks until changed; neither failure reaches the server.
            """,
            errors: [.notFound])
        struct Params: WireReadable {
            var deviceId = ""
            var outcome = BiometricOutcome.match
            static let fields: [WireField<Self>] = [.deviceId(\.deviceId), .required("outcome", \.outcome, .enumeration(BiometricOutcome.self))]
        }
        static let result = Codec.member("outcome", .enumeration(BiometricOutcome.self))
        static func handle(_ params: Params, _ context: CallContext) throws -> BiometricOutcome {
            try context.devices.setBiometricOutcome(deviceId: params.deviceId, params.outcome)
            return params.outcome
        }
    }

    enum IsActivatedLocally: DeviceCall {
        static let declaration = MethodDeclaration(
            "device/isActivatedLocally", "Whether the device holds an activation (no server call).",
            description: """
            Whether the simulated device holds an activation, read from its own state with no server call.
            """,
            errors: [.notFound])
        static let result = activated
        static func call(_ device: Device) throws -> Bool { try device.isActivatedLocally }
    }

    enum RegistrationId: DeviceCall {
        static let declaration = MethodDeclaration(
            "device/registrationId", "The registration the device holds (null when none).",
            description: "The registration the simulated device holds, or null when it holds none (device state only).",
            errors: [.notFound])
        static let result = Codec.member("registrationId", .nullable(.text))
        static func call(_ device: Device) throws -> String? { try device.registrationId }
    }

    enum IsRecoveryActivated: DeviceCall {
        static let declaration = MethodDeclaration("device/isRecoveryActivated", "Whether the device holds recovery data.",
            description: """
            Whether the simulated device holds backup-code recovery data (set by recovery/finishAddOrUpdate, consumed \
            by recovery/finish).
            """,
            errors: [.notFound])
        static let result = activated
        static func call(_ device: Device) throws -> Bool { try device.isRecoveryActivated }
    }

    enum ActivatedRecoveryMethods: DeviceCall {
        static let declaration = MethodDeclaration("device/activatedRecoveryMethods", "The recovery methods the device holds.",
            description: "The recovery methods the simulated device holds: [\"backup\"] or none.", errors: [.notFound])
        static let result = Codec.member("methods", .recoveryMethods)
        static func call(_ device: Device) throws -> [String] { try device.isRecoveryActivated ? ["backup"] : [] }
    }

    enum Backup: RPCMethod {
        static let declaration = MethodDeclaration(
            "device/backup", "Backs up the device: recovery data yes, this-device-only activation keys never.",
            description: """
            Backs the simulated device up (iCloud, or a computer, encrypted or not) and answers a backupId for \
            device/restore. Recovery data travels; this-device-only activation keys never do. iCloud needs iCloud \
            Keychain.
            """,
            errors: [.notFound, .iCloudKeychainDisabled])
        struct Params: WireReadable {
            var deviceId = ""
            var kind = BackupKind.iCloud
            static let fields: [WireField<Self>] = [.deviceId(\.deviceId), .required("kind", \.kind, .enumeration(BackupKind.self))]
        }
        static let result = Codec.member("backupId", .text)
        static func handle(_ params: Params, _ context: CallContext) throws -> String {
            try context.devices.backup(deviceId: params.deviceId, kind: params.kind)
        }
    }

    enum Restore: RPCMethod {
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
            ] + hardware(\.device.biometry, \.device.iCloudKeychain)
        }
        static let result = deviceIdResult
        static func handle(_ params: Params, _ context: CallContext) throws -> String {
            try context.devices.restore(backupId: params.backupId, params.device)
        }
    }
}
