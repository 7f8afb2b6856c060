import LatchkeyCore
import LatchkeyStorage

extension SimulatedDevices {
    /// Seals every secret item the release before sealing wrote in clear, which the store's migration marked (`unsealed/` before its
    /// name), in keychains and backups alike: none stays in clear until its phone is next used, or its backup restored.
    ///
    /// Once a process, as the simulated phones are first used; a store with no such item (every store but one that release wrote,
    /// after the first sweep) is only read.
    /// - Throws: a store failure (nothing is sealed then; the next use tries again).
    public func sealItemsWrittenInClear() throws {
        let marked = StoreValue.text(StoreDeviceStorage.writtenUnsealed)
        let items = StoreQuery<DeviceItemRecord>(where: [StoreFilter(DeviceItemRecord.Columns.name, .startsWith, marked)])
        let backupItems = StoreQuery<DeviceBackupItemRecord>(where: [StoreFilter(DeviceBackupItemRecord.Columns.name, .startsWith, marked)])
        try core.session { session in
            session.tx.willRead([.rows(items), .rows(backupItems)])
            for item in try session.tx.fetchAll(items) {
                guard let (name, value) = StoreDeviceStorage.opened(item.value, of: item.name, rowId: item.id, core) else { continue }
                let sealed = try StoreDeviceStorage.stored(value, of: name, rowId: item.id, core)
                try session.tx.save(
                    DeviceItemRecord(id: item.id, deviceId: item.deviceId, name: name, value: sealed, thisDeviceOnly: item.thisDeviceOnly))
            }
            for item in try session.tx.fetchAll(backupItems) {
                guard let (name, value) = StoreDeviceStorage.opened(item.value, of: item.name, rowId: item.id, core) else { continue }
                let sealed = try StoreDeviceStorage.stored(value, of: name, rowId: item.id, core)
                try session.tx.save(DeviceBackupItemRecord(id: item.id, backupId: item.backupId, name: name, value: sealed))
            }
        }
    }
}
