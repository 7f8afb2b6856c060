/// What a caller gives to create a simulated phone.
public struct NewDevice: Sendable {
    public var deviceId: String?
    public var biometry: Biometry
    public var iCloudKeychain: Bool
    public var name: String?

    public init(deviceId: String? = nil, biometry: Biometry = .faceId, iCloudKeychain: Bool = true, name: String? = nil) {
        self.deviceId = deviceId
        self.biometry = biometry
        self.iCloudKeychain = iCloudKeychain
        self.name = name
    }
}

extension Latchkey {
    /// Creates a simulated phone.
    /// - Throws: `alreadyExists`.
    public func createDevice(_ new: NewDevice) throws -> String {
        try transact { tx, _ in try insertDevice(tx, new) }
    }

    func insertDevice(_ tx: StoreTransaction, _ new: NewDevice) throws -> String {
        let deviceId = new.deviceId ?? random.identifier("dev")
        if try tx.fetch(DeviceRecord.self, id: deviceId) != nil {
            throw DomainError(.alreadyExists, "A device with this deviceId exists already", [("kind", .string("device"))])
        }
        try tx.save(DeviceRecord(id: deviceId, biometry: new.biometry.rawValue, iCloudKeychain: new.iCloudKeychain,
                                 name: new.name, biometricOutcome: BiometricOutcome.match.rawValue, createdAt: now))
        return deviceId
    }

    func device(_ tx: StoreTransaction, _ deviceId: String) throws -> DeviceRecord {
        guard let device = try tx.fetch(DeviceRecord.self, id: deviceId) else { throw DomainError.notFound("device") }
        return device
    }

    /// Sets what the biometric sensor answers from now on.
    public func setBiometricOutcome(deviceId: String, _ outcome: BiometricOutcome) throws {
        try transact { tx, _ in
            var record = try device(tx, deviceId)
            record.biometricOutcome = outcome.rawValue
            try tx.save(record)
        }
    }

    /// Whether the device holds an activation (no server call).
    public func isActivatedLocally(deviceId: String) throws -> Bool {
        try inspect { tx in
            _ = try device(tx, deviceId)
            return try DeviceKeychain(tx: tx, deviceId: deviceId).get(.registrationId) != nil
        }
    }

    /// The registration the device holds, if any.
    public func deviceRegistrationId(deviceId: String) throws -> String? {
        try inspect { tx in
            _ = try device(tx, deviceId)
            return try DeviceKeychain(tx: tx, deviceId: deviceId).string(.registrationId)
        }
    }
}
