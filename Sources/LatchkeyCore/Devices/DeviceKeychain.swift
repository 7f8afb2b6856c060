/// Names of the items a device keeps, and whether each is bound to this device.
enum DeviceItem: String, CaseIterable {
    /// What an item belongs to: the activation and the onboarding process stay on this device;
    /// the recovery data travels in backups.
    enum Group { case activation, onboarding, recovery }

    // The activation: this-device-only, never backed up.
    case registrationId = "activation.registrationId"
    case activatedMethods = "activation.methods"
    case possessionKey = "activation.possessionKey"
    case pinSalt = "activation.pinSalt"
    case pinMaskedKey = "activation.pinMaskedKey"
    case touchIdKey = "activation.touchIdKey"
    case faceIdKey = "activation.faceIdKey"
    case lastAuthenticationMethod = "activation.lastMethod"
    // The onboarding process the device remembers: this-device-only.
    case onboardingProcessId = "onboarding.processId"
    case onboardingInstance = "onboarding.instance"
    // Recovery data: backed up, so a restored phone can recover its registration.
    case recoveryRegistrationId = "recovery.registrationId"
    case recoverySalt = "recovery.salt"
    case recoveryMaskedKey = "recovery.maskedKey"

    var group: Group {
        if rawValue.hasPrefix("recovery.") { return .recovery }
        return rawValue.hasPrefix("onboarding.") ? .onboarding : .activation
    }

    var thisDeviceOnly: Bool { group != .recovery }
}

/// A device's keychain within one transaction.
struct DeviceKeychain {
    let tx: StoreTransaction
    let deviceId: String

    func get(_ item: DeviceItem) throws -> [UInt8]? {
        try tx.fetch(DeviceItemRecord.self, id: "\(deviceId)/\(item.rawValue)")?.value
    }

    func string(_ item: DeviceItem) throws -> String? {
        try get(item).map { String(decoding: $0, as: UTF8.self) }
    }

    func set(_ item: DeviceItem, _ value: [UInt8]) throws {
        try tx.save(DeviceItemRecord(id: "\(deviceId)/\(item.rawValue)", deviceId: deviceId, name: item.rawValue,
                                     value: value, thisDeviceOnly: item.thisDeviceOnly))
    }

    func set(_ item: DeviceItem, _ value: String) throws { try set(item, Array(value.utf8)) }

    func remove(_ item: DeviceItem) throws {
        try tx.delete(DeviceItemRecord.self, id: "\(deviceId)/\(item.rawValue)")
    }

    /// Removes every activation item (a local deactivation).
    func wipeActivation() throws {
        for item in DeviceItem.allCases where item.group == .activation { try remove(item) }
    }

    /// Removes the recovery data.
    func wipeRecovery() throws {
        for item in DeviceItem.allCases where item.group == .recovery { try remove(item) }
    }

    var activatedMethods: [AuthMethod] {
        get throws { AuthMethod.list(try string(.activatedMethods) ?? "") }
    }

    func setActivatedMethods(_ methods: [AuthMethod]) throws {
        try set(.activatedMethods, AuthMethod.text(methods))
    }
}
