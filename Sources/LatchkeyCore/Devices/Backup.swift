/// Kinds of phone backup. All carry the recovery data; none carries this-device-only items.
public enum BackupKind: String, Sendable, CaseIterable { case iCloud, computerEncrypted, computerUnencrypted }

extension Latchkey {
    /// Backs up the device: only the items that survive a restore.
    /// - Throws: `notFound` (device), `iCloudKeychainDisabled`.
    public func backupDevice(deviceId: String, kind: BackupKind) throws -> String {
        try transact { tx, _ in
            let device = try device(tx, deviceId)
            if kind == .iCloud, !device.iCloudKeychain {
                throw DomainError(.iCloudKeychainDisabled, "An iCloud backup needs iCloud Keychain on this device")
            }
            let backupId = random.identifier("bak")
            try tx.save(DeviceBackupRecord(id: backupId, deviceId: deviceId, kind: kind.rawValue, createdAt: now))
            for item in try tx.fetchAll(DeviceItemRecord.self, where: [.equals("deviceId", deviceId)]) where !item.thisDeviceOnly {
                try tx.save(DeviceBackupItemRecord(id: "\(backupId)/\(item.name)", backupId: backupId, name: item.name, value: item.value))
            }
            return backupId
        }
    }

    /// Restores a backup onto a new device: recovery data yes, activation keys never.
    /// - Throws: `notFound` (backup), `alreadyExists` (device).
    public func restoreDevice(backupId: String, _ new: NewDevice) throws -> String {
        try transact { tx, _ in
            guard try tx.fetch(DeviceBackupRecord.self, id: backupId) != nil else { throw DomainError.notFound("backup") }
            let deviceId = try insertDevice(tx, new)
            for item in try tx.fetchAll(DeviceBackupItemRecord.self, where: [.equals("backupId", backupId)]) {
                guard let name = DeviceItem(rawValue: item.name), !name.thisDeviceOnly else { continue }
                try DeviceKeychain(tx: tx, deviceId: deviceId).set(name, item.value)
            }
            return deviceId
        }
    }
}
