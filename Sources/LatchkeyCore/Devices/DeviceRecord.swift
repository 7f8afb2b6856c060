/// The biometry a simulated phone has.
public enum Biometry: String, Sendable, CaseIterable { case none, touchId, faceId }

/// What the simulated biometric sensor answers next.
public enum BiometricOutcome: String, Sendable, CaseIterable { case match, noMatch, cancel }

/// A simulated phone. Its state is kept apart from the server's tables.
struct DeviceRecord: StoredRecord {
    static let table = "device"
    var id: String
    var biometry: String
    var iCloudKeychain: Bool
    var name: String?
    var biometricOutcome: String
    var createdAt: Int64

    var biometryKind: Biometry { Biometry(rawValue: biometry) ?? .none }
    var outcome: BiometricOutcome { BiometricOutcome(rawValue: biometricOutcome) ?? .match }

    /// Whether the phone can offer `method` at all.
    func supports(_ method: AuthMethod) -> Bool {
        switch method {
        case .device, .pin: return true
        case .touchId: return biometryKind == .touchId
        case .faceId: return biometryKind == .faceId
        }
    }
}

/// One item of a device's keychain. `thisDeviceOnly` items never leave the phone, not even in
/// a backup (activation keys); the others travel with backups (recovery data).
struct DeviceItemRecord: StoredRecord {
    static let table = "device_item"
    var id: String
    var deviceId: String
    var name: String
    var value: [UInt8]
    var thisDeviceOnly: Bool
}

/// A backup of a device: the items that survive a restore.
struct DeviceBackupRecord: StoredRecord {
    static let table = "device_backup"
    var id: String
    var deviceId: String
    var kind: String
    var createdAt: Int64
}

/// One item inside a backup.
struct DeviceBackupItemRecord: StoredRecord {
    static let table = "device_backup_item"
    var id: String
    var backupId: String
    var name: String
    var value: [UInt8]
}
