import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

/// The simulated phone's local state, and its backups.
enum DeviceMethods {
    static let all: [any RPCMethod.Type] = [
        Create.self, SetBiometricOutcome.self, IsActivatedLocally.self, RegistrationId.self,
        IsRecoveryActivated.self, ActivatedRecoveryMethods.self, Backup.self, Restore.self,
    ]

    /// `{deviceId}`: the params of every call that acts on one device and takes nothing else.
    struct DeviceParams: WireReadable {
        var deviceId = ""
        static let fields: [WireField<Self>] = [.deviceId(\.deviceId)]
    }

    /// `{deviceId}` as a result.
    struct DeviceIdResult: WireObject {
        var deviceId: String
        static let fields: [WireField<Self>] = [.required("deviceId", \.deviceId, .text)]
    }

    /// `{activated}`.
    struct Activated: WireObject {
        var activated: Bool
        static let fields: [WireField<Self>] = [.required("activated", \.activated, .bool)]
    }

    /// The hardware a new simulated phone has.
    static func hardware<Root>(_ biometry: WritableKeyPath<Root, Biometry> & Sendable,
                               _ iCloudKeychain: WritableKeyPath<Root, Bool> & Sendable) -> [WireField<Root>] {
        [.defaulted("biometry", biometry, .enumeration(Biometry.self), default: .faceId),
         .defaulted("iCloudKeychain", iCloudKeychain, .bool, default: true)]
    }

    enum Create: RPCMethod {
        static let name = "device/create"
        static let summary = "Creates a simulated phone (deviceId generated when absent)."
        static let errors: [ErrorReason] = [.alreadyExists]
        struct Params: WireReadable {
            var device = NewDevice()
            static let fields: [WireField<Self>] = [.optional("deviceId", \.device.deviceId, .identifier)]
                + hardware(\.device.biometry, \.device.iCloudKeychain) + [.optional("name", \.device.name, .text)]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> DeviceIdResult {
            DeviceIdResult(deviceId: try context.core.createDevice(params.device))
        }
    }

    enum SetBiometricOutcome: RPCMethod {
        static let name = "device/setBiometricOutcome"
        static let summary = "Sets what the biometric sensor answers from now on (sticks until changed)."
        static let errors: [ErrorReason] = [.notFound]
        struct Params: WireReadable {
            var deviceId = ""
            var outcome = BiometricOutcome.match
            static let fields: [WireField<Self>] = [.deviceId(\.deviceId), .required("outcome", \.outcome, .enumeration(BiometricOutcome.self))]
        }
        struct Result: WireObject {
            var outcome: BiometricOutcome
            static let fields: [WireField<Self>] = [.required("outcome", \.outcome, .enumeration(BiometricOutcome.self))]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> Result {
            try context.core.setBiometricOutcome(deviceId: params.deviceId, params.outcome)
            return Result(outcome: params.outcome)
        }
    }

    enum IsActivatedLocally: RPCMethod {
        static let name = "device/isActivatedLocally"
        static let summary = "Whether the device holds an activation (no server call)."
        static let errors: [ErrorReason] = [.notFound]
        static func handle(_ params: DeviceParams, _ context: CallContext) throws -> Activated {
            Activated(activated: try context.core.isActivatedLocally(deviceId: params.deviceId))
        }
    }

    enum RegistrationId: RPCMethod {
        static let name = "device/registrationId"
        static let summary = "The registration the device holds (null when none)."
        static let errors: [ErrorReason] = [.notFound]
        struct Result: WireObject {
            var registrationId: String?
            static let fields: [WireField<Self>] = [.nullable("registrationId", \.registrationId, .text)]
        }
        static func handle(_ params: DeviceParams, _ context: CallContext) throws -> Result {
            Result(registrationId: try context.core.deviceRegistrationId(deviceId: params.deviceId))
        }
    }

    enum IsRecoveryActivated: RPCMethod {
        static let name = "device/isRecoveryActivated"
        static let summary = "Whether the device holds recovery data."
        static let errors: [ErrorReason] = [.notFound]
        static func handle(_ params: DeviceParams, _ context: CallContext) throws -> Activated {
            Activated(activated: try context.core.isRecoveryActivated(deviceId: params.deviceId))
        }
    }

    enum ActivatedRecoveryMethods: RPCMethod {
        static let name = "device/activatedRecoveryMethods"
        static let summary = "The recovery methods the device holds."
        static let errors: [ErrorReason] = [.notFound]
        struct Result: WireObject {
            var methods: [String]
            static let fields: [WireField<Self>] = [.required("methods", \.methods, .recoveryMethods)]
        }
        static func handle(_ params: DeviceParams, _ context: CallContext) throws -> Result {
            Result(methods: try context.core.isRecoveryActivated(deviceId: params.deviceId) ? ["backup"] : [])
        }
    }

    enum Backup: RPCMethod {
        static let name = "device/backup"
        static let summary = "Backs up the device: recovery data yes, this-device-only activation keys never."
        static let errors: [ErrorReason] = [.notFound, .iCloudKeychainDisabled]
        struct Params: WireReadable {
            var deviceId = ""
            var kind = BackupKind.iCloud
            static let fields: [WireField<Self>] = [.deviceId(\.deviceId), .required("kind", \.kind, .enumeration(BackupKind.self))]
        }
        struct Result: WireObject {
            var backupId: String
            static let fields: [WireField<Self>] = [.required("backupId", \.backupId, .text)]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> Result {
            Result(backupId: try context.core.backupDevice(deviceId: params.deviceId, kind: params.kind))
        }
    }

    enum Restore: RPCMethod {
        static let name = "device/restore"
        static let summary = "Makes a new device holding what the backup carries."
        static let errors: [ErrorReason] = [.notFound, .alreadyExists]
        struct Params: WireReadable {
            var backupId = ""
            var device = NewDevice()
            static let fields: [WireField<Self>] = [
                .required("backupId", \.backupId, .identifier), .optional("deviceId", \.device.deviceId, .identifier, "the new device"),
            ] + hardware(\.device.biometry, \.device.iCloudKeychain)
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> DeviceIdResult {
            DeviceIdResult(deviceId: try context.core.restoreDevice(backupId: params.backupId, params.device))
        }
    }
}
