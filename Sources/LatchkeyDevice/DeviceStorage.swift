import LatchkeyContract

/// The items a device keeps, and what each belongs to.
public enum DeviceItem: String, Sendable, CaseIterable {
    /// What an item belongs to: the activation and the onboarding process stay on this device
    /// (this-device-only, as keychain items of that class are); the recovery data travels in
    /// backups; synced passkeys travel in iCloud backups only, device-bound ones never.
    public enum Group: Sendable { case activation, onboarding, recovery, syncedPasskeys, deviceBoundPasskeys }

    // The activation.
    case registrationId = "activation.registrationId"
    case activatedMethods = "activation.methods"
    case possessionKey = "activation.possessionKey"
    case pinSalt = "activation.pinSalt"
    case pinMaskedKey = "activation.pinMaskedKey"
    case touchIdKey = "activation.touchIdKey"
    case faceIdKey = "activation.faceIdKey"
    case lastAuthenticationMethod = "activation.lastMethod"
    /// The operation started and not yet finished (see `PendingOperation`).
    case pendingOperation = "activation.pending"
    /// The application's operation-signing key, as learned first (a different one later is refused).
    case operationSigningKey = "activation.operationSigningKey"
    /// The registration's server key (offline approval's key agreement).
    case serverPublicKey = "activation.serverPublicKey"
    // The onboarding process the device remembers.
    case onboardingProcessId = "onboarding.processId"
    case onboardingInstance = "onboarding.instance"
    // The recovery data.
    case recoveryRegistrationId = "recovery.registrationId"
    case recoverySalt = "recovery.salt"
    case recoveryMaskedKey = "recovery.maskedKey"
    // The passkeys (discoverable credentials) the platform authenticator keeps.
    case syncedPasskeys = "passkeys.synced"
    case deviceBoundPasskeys = "passkeys.deviceBound"

    public var group: Group {
        switch self {
        case .syncedPasskeys: return .syncedPasskeys
        case .deviceBoundPasskeys: return .deviceBoundPasskeys
        default:
            if rawValue.hasPrefix("recovery.") { return .recovery }
            return rawValue.hasPrefix("onboarding.") ? .onboarding : .activation
        }
    }

    /// Whether the item must never leave this device, not even in a backup.
    public var thisDeviceOnly: Bool { group != .recovery && group != .syncedPasskeys }

    /// Whether the item travels in a backup of this kind (iCloud Keychain's items only in an iCloud one).
    public func travels(inICloudBackup iCloud: Bool) -> Bool {
        !thisDeviceOnly && (group != .syncedPasskeys || iCloud)
    }
}

/// Where a device keeps its items (a keychain on a phone; the store's device tables for the simulated devices).
///
/// Values are bytes; nil removes an item.
public protocol DeviceStorage {
    func item(_ item: DeviceItem) throws -> [UInt8]?
    func setItem(_ item: DeviceItem, _ value: [UInt8]?) throws
}

extension DeviceStorage {
    func string(_ item: DeviceItem) throws -> String? {
        try self.item(item).map { String(decoding: $0, as: UTF8.self) }
    }

    func set(_ item: DeviceItem, _ value: String?) throws {
        try setItem(item, value.map { Array($0.utf8) })
    }

    /// Removes every item of a group.
    func wipe(_ group: DeviceItem.Group) throws {
        for item in DeviceItem.allCases where item.group == group { try setItem(item, nil) }
    }
}

/// The biometry a phone has.
public enum Biometry: String, Sendable, CaseIterable { case none, touchId, faceId }

/// What the biometric sensor answers.
public enum BiometricOutcome: String, Sendable, CaseIterable { case match, noMatch, cancel }

/// The phone itself: its sensor, its keychain settings, its name.
public struct DeviceProfile: Sendable, Equatable {
    public var biometry: Biometry
    public var iCloudKeychain: Bool
    public var name: String?
    public var biometricOutcome: BiometricOutcome

    public init(biometry: Biometry = .faceId, iCloudKeychain: Bool = true, name: String? = nil, biometricOutcome: BiometricOutcome = .match) {
        self.biometry = biometry
        self.iCloudKeychain = iCloudKeychain
        self.name = name
        self.biometricOutcome = biometricOutcome
    }

    /// Whether the phone can offer `method` at all.
    public func supports(_ method: AuthMethod) -> Bool {
        switch method {
        case .device, .pin: return true
        case .touchId: return biometry == .touchId
        case .faceId: return biometry == .faceId
        }
    }

    /// Refuses on the phone what never reaches the server: a missing sensor, no match, cancel.
    /// - Throws: `biometryUnavailable`, `biometryFailed`, `biometryCancelled`.
    public func checkBiometry(_ method: AuthMethod) throws {
        guard method.isBiometric else { return }
        guard supports(method) else {
            throw DomainError(.biometryUnavailable, "This device has no \(method.rawValue)")
        }
        switch biometricOutcome {
        case .match: return
        case .noMatch: throw DomainError(.biometryFailed, "The device did not recognise the face or finger; nothing was sent")
        case .cancel: throw DomainError(.biometryCancelled, "The biometric prompt was cancelled; nothing was sent")
        }
    }
}
