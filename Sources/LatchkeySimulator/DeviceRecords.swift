import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice

/// A simulated phone.
///
/// Its state is kept apart from the server's tables (no record crosses them).
struct DeviceRecord: StoredRecord {
    static let table = "device"
    var id: String
    /// The sensor, as the closed set names it (a row holding another text does not read: no sensor
    /// is made up for it).
    var biometry: Biometry
    var iCloudKeychain: Bool
    var name: String?
    var biometricOutcome: BiometricOutcome
    var createdAt: Int64

    var profile: DeviceProfile {
        DeviceProfile(biometry: biometry, iCloudKeychain: iCloudKeychain, name: name, biometricOutcome: biometricOutcome)
    }
}

/// One item of a device's keychain.
///
/// `thisDeviceOnly` items never leave the phone, not even in a backup (activation keys); the others
/// travel with backups (recovery data).
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

    /// A backup's items.
    static let ofBackup = KeyedQuery<DeviceBackupItemRecord>(Columns.backupId)
}

/// A simulated device's keychain: its items in the store, within the transaction in hand.
///
/// The first read loads every item of the device in one query (a flow reads several; on PostgreSQL each
/// query is a round trip), later reads and writes keep that copy current. Every access to a device's
/// items goes through this type, one instance per device and transaction.
final class StoreDeviceStorage: DeviceStorage {
    let tx: StoreTransaction
    let deviceId: String
    /// Seals and opens the items that hold key material.
    let core: Latchkey
    /// The device's items by name (nil until first read).
    private var loaded: [String: [UInt8]]?

    /// A keychain read on first use, or the `items` read with the device.
    init(tx: StoreTransaction, deviceId: String, core: Latchkey, items: [DeviceItemRecord]? = nil) {
        self.tx = tx
        self.deviceId = deviceId
        self.core = core
        loaded = items.map { Self.byName($0, core) }
    }

    /// The items that hold key material: kept sealed under the store's key (security property 1), in the keychain and in backups.
    ///
    /// The others stay readable: the store finds the registrations and the onboarding process a phone names through them.
    static let sealedItems: Set<DeviceItem> = [
        .possessionKey, .pinMaskedKey, .touchIdKey, .faceIdKey, .pendingOperation, .recoveryMaskedKey, .syncedPasskeys, .deviceBoundPasskeys,
    ]

    /// An item's value as its row keeps it.
    static func stored(_ value: [UInt8], of name: String, rowId: String, _ core: Latchkey) throws -> [UInt8] {
        guard let item = DeviceItem(rawValue: name), sealedItems.contains(item) else { return value }
        return try core.sealDeviceSecret(value, rowId: rowId)
    }

    /// An item's value from its row; nil for a sealed one that does not open (the phone then holds no such item).
    static func opened(_ value: [UInt8], of name: String, rowId: String, _ core: Latchkey) -> [UInt8]? {
        guard let item = DeviceItem(rawValue: name), sealedItems.contains(item) else { return value }
        return core.openDeviceSecret(value, rowId: rowId)
    }

    /// The read of a device's keychain, by deviceId.
    static let keychain = KeyedQuery<DeviceItemRecord>(DeviceItemRecord.Columns.deviceId)

    /// The id of a device's item.
    static func itemId(_ item: DeviceItem, of deviceId: String) -> String { "\(deviceId)/\(item.rawValue)" }

    /// The text items of a device hold, as a key a read finds rows by (the registrations they name).
    static func itemText(of item: DeviceItem, _ more: DeviceItem..., of deviceId: String) -> StoreKey {
        let ids = more.reduce(StoreKey.value(itemId(item, of: deviceId))) { .either($0, .value(itemId($1, of: deviceId))) }
        return .text(ofBytes: DeviceItemRecord.Columns.value, of: DeviceItemRecord.self, ids)
    }

    /// Items by name, opened (the last one read wins).
    private static func byName(_ records: [DeviceItemRecord], _ core: Latchkey) -> [String: [UInt8]] {
        Dictionary(
            records.compactMap { record in opened(record.value, of: record.name, rowId: record.id, core).map { (record.name, $0) } },
            uniquingKeysWith: { _, last in last })
    }

    func item(_ item: DeviceItem) throws -> [UInt8]? {
        if let loaded { return loaded[item.rawValue] }
        let items = Self.byName(try tx.fetchAll(Self.keychain, deviceId), core)
        loaded = items
        return items[item.rawValue]
    }

    func setItem(_ item: DeviceItem, _ value: [UInt8]?) throws {
        // The keychain as read says the item holds this already: nothing to write.
        if let loaded, loaded[item.rawValue] == value { return }
        let id = Self.itemId(item, of: deviceId)
        if let value {
            try tx.save(
                DeviceItemRecord(
                    id: id, deviceId: deviceId, name: item.rawValue, value: try Self.stored(value, of: item.rawValue, rowId: id, core),
                    thisDeviceOnly: item.thisDeviceOnly))
        } else {
            try tx.delete(DeviceItemRecord.self, id: id)
        }
        loaded?[item.rawValue] = value
    }
}

// Each record's row, coded as the server's are (LatchkeyCore/Store/Records+Rows.swift).

extension DeviceRecord {
    enum Columns: String, CaseIterable { case id, biometry, iCloudKeychain, name, biometricOutcome, createdAt }
    static let columns = Columns.allCases.map(\.rawValue)

    init(row: inout RowReader) throws {
        try self.init(
            id: row.text(), biometry: row.value(Biometry.self), iCloudKeychain: row.flag(), name: row.optionalText(),
            biometricOutcome: row.value(BiometricOutcome.self), createdAt: row.integer())
    }

    func encode(into row: inout RowWriter) { row.put(id, biometry.rawValue, iCloudKeychain, name, biometricOutcome.rawValue, createdAt) }
}

extension DeviceItemRecord {
    enum Columns: String, CaseIterable { case id, deviceId, name, value, thisDeviceOnly }
    static let columns = Columns.allCases.map(\.rawValue)

    init(row: inout RowReader) throws {
        try self.init(id: row.text(), deviceId: row.text(), name: row.text(), value: row.bytes(), thisDeviceOnly: row.flag())
    }

    func encode(into row: inout RowWriter) { row.put(id, deviceId, name, value, thisDeviceOnly) }
}

extension DeviceBackupRecord {
    enum Columns: String, CaseIterable { case id, deviceId, kind, createdAt }
    static let columns = Columns.allCases.map(\.rawValue)

    init(row: inout RowReader) throws {
        try self.init(id: row.text(), deviceId: row.text(), kind: row.text(), createdAt: row.integer())
    }

    func encode(into row: inout RowWriter) { row.put(id, deviceId, kind, createdAt) }
}

extension DeviceBackupItemRecord {
    enum Columns: String, CaseIterable { case id, backupId, name, value }
    static let columns = Columns.allCases.map(\.rawValue)

    init(row: inout RowReader) throws {
        try self.init(id: row.text(), backupId: row.text(), name: row.text(), value: row.bytes())
    }

    func encode(into row: inout RowWriter) { row.put(id, backupId, name, value) }
}
