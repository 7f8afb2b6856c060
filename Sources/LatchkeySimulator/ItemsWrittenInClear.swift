import LatchkeyCore
import LatchkeyDevice
import LatchkeyStorage

extension SimulatedDevices {
    /// What the store's migration put before the name of a secret item written in clear by the release before sealing.
    static let writtenUnsealed = "unsealed/"

    /// Seals every secret item the release before sealing wrote in clear, which the store's migration marked (`writtenUnsealed` before
    /// its name), in keychains and backups alike, under its own name: as the phones are made (`init`), so no phone reads one.
    ///
    /// A store with no such item (every store but one that release wrote, after the first sweep) is only read.
    /// - Throws: a store failure (nothing is sealed then).
    func sealItemsWrittenInClear() throws {
        let marked = StoreValue.text(Self.writtenUnsealed)
        let items = StoreQuery<DeviceItemRecord>(where: [StoreFilter(DeviceItemRecord.Columns.name, .startsWith, marked)])
        let backupItems = StoreQuery<DeviceBackupItemRecord>(where: [StoreFilter(DeviceBackupItemRecord.Columns.name, .startsWith, marked)])
        try core.session { session in
            session.tx.willRead([.rows(items), .rows(backupItems)])
            for item in try session.tx.fetchAll(items) {
                guard let (name, sealed) = try sealedUnmarked(item.name, item.value, rowId: item.id) else { continue }
                try session.tx.save(
                    DeviceItemRecord(id: item.id, deviceId: item.deviceId, name: name, value: sealed, thisDeviceOnly: item.thisDeviceOnly))
            }
            for item in try session.tx.fetchAll(backupItems) {
                guard let (name, sealed) = try sealedUnmarked(item.name, item.value, rowId: item.id) else { continue }
                try session.tx.save(DeviceBackupItemRecord(id: item.id, backupId: item.backupId, name: name, value: sealed))
            }
        }
    }

    /// A marked item's own name and its value sealed for its row; nil for a name that is no secret item (the migration marks none).
    private func sealedUnmarked(_ markedName: String, _ value: [UInt8], rowId: String) throws -> (name: String, value: [UInt8])? {
        let name = String(markedName.dropFirst(Self.writtenUnsealed.count))
        guard let item = DeviceItem(rawValue: name), StoreDeviceStorage.sealedItems.contains(item) else { return nil }
        return (name, try StoreDeviceStorage.stored(value, of: name, rowId: rowId, core))
    }
}
