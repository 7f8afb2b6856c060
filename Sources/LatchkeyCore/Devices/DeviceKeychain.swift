/// Names of the items a device keeps, and whether each is bound to this device.
enum DeviceItem: String, CaseIterable {
    // The activation: this-device-only, never backed up.
    case registrationId = "activation.registrationId"
    case activatedMethods = "activation.methods"
    case possessionKey = "activation.possessionKey"
    case pinSalt = "activation.pinSalt"
    case pinMaskedKey = "activation.pinMaskedKey"
    case touchIdKey = "activation.touchIdKey"
    case faceIdKey = "activation.faceIdKey"
    // Recovery data: backed up, so a restored phone can recover its registration.
    case recoveryRegistrationId = "recovery.registrationId"
    case recoverySalt = "recovery.salt"
    case recoveryMaskedKey = "recovery.maskedKey"

    var thisDeviceOnly: Bool { rawValue.hasPrefix("activation.") }
}

/// A device's keychain within one transaction. The items are read in one query on first use
/// and kept while the keychain is in hand; writes go through to the store.
struct DeviceKeychain {
    let tx: StoreTransaction
    let deviceId: String
    private let cache = ItemCache()

    init(tx: StoreTransaction, deviceId: String) {
        self.tx = tx
        self.deviceId = deviceId
    }

    private final class ItemCache {
        var items: [String: [UInt8]]?
    }

    private func items() throws -> [String: [UInt8]] {
        if let items = cache.items { return items }
        var loaded: [String: [UInt8]] = [:]
        for record in try tx.fetchAll(DeviceItemRecord.self, where: [.equals("deviceId", deviceId)]) {
            loaded[record.name] = record.value
        }
        cache.items = loaded
        return loaded
    }

    func get(_ item: DeviceItem) throws -> [UInt8]? {
        try items()[item.rawValue]
    }

    func string(_ item: DeviceItem) throws -> String? {
        try get(item).map { String(decoding: $0, as: UTF8.self) }
    }

    func set(_ item: DeviceItem, _ value: [UInt8]) throws {
        try tx.save(DeviceItemRecord(id: "\(deviceId)/\(item.rawValue)", deviceId: deviceId, name: item.rawValue,
                                     value: value, thisDeviceOnly: item.thisDeviceOnly))
        if cache.items != nil { cache.items?[item.rawValue] = value }
    }

    func set(_ item: DeviceItem, _ value: String) throws { try set(item, Array(value.utf8)) }

    func remove(_ item: DeviceItem) throws {
        try tx.delete(DeviceItemRecord.self, id: "\(deviceId)/\(item.rawValue)")
        if cache.items != nil { cache.items?[item.rawValue] = nil }
    }

    /// Removes every activation item (a local deactivation).
    func wipeActivation() throws {
        for item in DeviceItem.allCases where item.thisDeviceOnly { try remove(item) }
    }

    /// Removes the recovery data.
    func wipeRecovery() throws {
        for item in DeviceItem.allCases where !item.thisDeviceOnly { try remove(item) }
    }

    var activatedMethods: [AuthMethod] {
        get throws { AuthMethod.list(try string(.activatedMethods) ?? "") }
    }

    func setActivatedMethods(_ methods: [AuthMethod]) throws {
        try set(.activatedMethods, AuthMethod.text(methods))
    }
}
