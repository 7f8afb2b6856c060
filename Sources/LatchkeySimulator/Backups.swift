import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice

/// Kinds of phone backup.
///
/// All carry the recovery data; none carries this-device-only items.
public enum BackupKind: String, Sendable, CaseIterable { case iCloud, computerEncrypted, computerUnencrypted }

extension SimulatedDevices {
    /// Backs up the device: only the items that survive a restore.
    /// - Throws: `notFound` (device), `iCloudKeychainDisabled`.
    public func backup(deviceId: String, kind: BackupKind) throws -> String {
        try withDevice(deviceId) { device, session in
            if kind == .iCloud, !device.profile.iCloudKeychain {
                throw DomainError(.iCloudKeychainDisabled, "An iCloud backup needs iCloud Keychain on this device")
            }
            let backupId = core.random.identifier("bak")
            try session.tx.save(DeviceBackupRecord(id: backupId, deviceId: deviceId, kind: kind.rawValue, createdAt: core.clock.now))
            for (item, value) in try device.backupItems(iCloud: kind == .iCloud) {
                let id = "\(backupId)/\(item.rawValue)"
                let stored = try StoreDeviceStorage.stored(value, of: item.rawValue, rowId: id, core)
                try session.tx.save(DeviceBackupItemRecord(id: id, backupId: backupId, name: item.rawValue, value: stored))
            }
            return backupId
        }
    }

    /// Restores a backup onto a new device: recovery data yes, activation keys never.
    /// - Throws: `notFound` (backup), `alreadyExists` (device).
    public func restore(backupId: String, _ new: NewDevice) throws -> String {
        try core.session { session in
            // A deviceId drawn here (after the backup is found) is checked with COMMIT.
            session.tx.willRead(
                [.row(DeviceBackupRecord.self, id: backupId), .rows(DeviceBackupItemRecord.ofBackup, .value(backupId))]
                    + (new.deviceId.map { [.row(DeviceRecord.self, id: $0)] } ?? []))
            guard try session.tx.fetch(DeviceBackupRecord.self, id: backupId) != nil else { throw DomainError.notFound("backup") }
            let deviceId = try insert(session.tx, new)
            let storage = StoreDeviceStorage(tx: session.tx, deviceId: deviceId, core: core)
            for item in try session.tx.fetchAll(DeviceBackupItemRecord.ofBackup, backupId) {
                guard let name = DeviceItem(rawValue: item.name), !name.thisDeviceOnly,
                    let value = StoreDeviceStorage.opened(item.value, of: item.name, rowId: item.id, core)
                else { continue }
                try storage.setItem(name, value)
            }
            return deviceId
        }
    }
}
