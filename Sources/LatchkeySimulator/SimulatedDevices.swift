import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

/// The simulated phones: each is a `Device` over an in-process connection to the server half (a `ServerSession`) and a keychain in the store's device
/// tables, both in one transaction, so what the phone keeps and what the server keeps commit together.
///
/// One server: the phones run on the same operations as devices outside the process.
public final class SimulatedDevices: Sendable {
    public let core: Latchkey
    /// Names this process as "the running app": an onboarding process started without `canRestoreSession` is forgotten by the next process.
    ///
    /// Not secret, never written out but as that marker.
    let instanceId = "pid-\(getpid())-\(SystemClock().nowMilliseconds)"
    /// The PIN salts that let a PIN be derived before a device's transaction opens.
    private let pinSalts = PinSaltsForDerivation()

    /// The phones of `core`'s store, every item the release before wrote in clear sealed first (`sealItemsWrittenInClear`): no phone
    /// reads one.
    /// - Throws: a store failure (nothing is sealed; the next try seals it all).
    public init(core: Latchkey) throws {
        self.core = core
        try sealItemsWrittenInClear()
    }

    /// Runs `body` on device `deviceId` in one transaction.
    ///
    /// The transaction states at its start what the phone reads, from its deviceId (`reads(of:)`),
    /// and `more`: what the call reads through its parameters (an activation code, a token,
    /// credentials), so a store with round trips reads it all in one.
    ///
    /// `pin`, when the call is to unmask the PIN key with it, is derived before the transaction
    /// opens, under the salt the device held at its last call in this process (`PinSaltsForDerivation`):
    /// the transaction then stays open for round trips only, however often it runs again.
    /// - Throws: `notFound` (device), and what `body` throws.
    public func withDevice<T>(
        _ deviceId: String, pin: String? = nil, reading more: [StoreRead] = [], _ body: (Device, ServerSession) throws -> T
    ) throws -> T {
        let derivation = try pin.flatMap { pin in
            try pinSalts.salt(of: deviceId).map { try PinDerivation(pin: pin, salt: $0.salt, keyLength: $0.keyLength) }
        }
        let (value, salt) = try core.session { session in
            session.tx.willRead(Self.reads(of: deviceId) + more)
            guard let record = try session.tx.fetch(DeviceRecord.self, id: deviceId) else { throw DomainError.notFound("device") }
            let items = try session.tx.fetchAll(StoreDeviceStorage.keychain, deviceId)
            var device = device(record, items, session)
            device.pinDerivation = derivation
            let value = try body(device, session)
            return (value, try device.pinSalt)
        }
        pinSalts.keep(salt, of: deviceId)
        return value
    }

    /// What a phone's call reads, from its deviceId: its record and keychain, and through the
    /// registrations and the onboarding process its keychain names, what its server half reads
    /// (`Latchkey.deviceReads`).
    static func reads(of deviceId: String) -> [StoreRead] {
        let registrations = registrations(of: deviceId)
        let process = StoreDeviceStorage.itemText(of: .onboardingProcessId, of: deviceId)
        return [.row(DeviceRecord.self, id: deviceId), .rows(StoreDeviceStorage.keychain, .value(deviceId))]
            + Latchkey.deviceReads(caller: .device(deviceId), registrations: registrations, processes: process)
    }

    /// The registrations a device holds, as its keychain names them: what a call's own reads of the
    /// server half go through (`withDevice`'s `more`).
    public static func registrations(of deviceId: String) -> StoreKey {
        StoreDeviceStorage.itemText(of: .registrationId, .recoveryRegistrationId, of: deviceId)
    }

    private func device(_ record: DeviceRecord, _ items: [DeviceItemRecord], _ session: ServerSession) -> Device {
        Device(
            storage: StoreDeviceStorage(tx: session.tx, deviceId: record.id, core: core, items: items), server: session,
            profile: record.profile,
            random: core.random, clock: core.clock, caller: .device(record.id), instance: instanceId)
    }

    /// Runs `body` on a device; `pin` and `more` as for `withDevice`.
    public func on<T>(_ deviceId: String, pin: String? = nil, reading more: [StoreRead] = [], _ body: (Device) throws -> T) throws -> T {
        try withDevice(deviceId, pin: pin, reading: more) { device, _ in try body(device) }
    }

    /// Creates a simulated phone.
    /// - Throws: `alreadyExists`.
    public func create(_ new: NewDevice) throws -> String {
        try core.session { session in try insert(session.tx, new) }
    }

    func insert(_ tx: StoreTransaction, _ new: NewDevice) throws -> String {
        let deviceId: String
        if let given = new.deviceId {
            guard try tx.fetch(DeviceRecord.self, id: given) == nil else {
                throw DomainError(.alreadyExists, "A device with this deviceId exists already", [(.kind, .string("device"))])
            }
            deviceId = given
        } else {
            // A drawn id (80 random bits) is checked with COMMIT, no round trip of its own: were it ever taken, the transaction runs
            // again, asks first and draws another.
            var drawn: String
            repeat {
                drawn = core.random.identifier("dev")
            } while try !tx.noneMatch(StoreQuery<DeviceRecord>(where: [.equals(DeviceRecord.Columns.id, drawn)], limit: 1))
            deviceId = drawn
        }
        try tx.save(
            DeviceRecord(
                id: deviceId, biometry: new.biometry, iCloudKeychain: new.iCloudKeychain,
                name: new.name, biometricOutcome: .match, createdAt: core.clock.now))
        return deviceId
    }

    /// Sets what the biometric sensor answers from now on.
    /// - Throws: `notFound` (device).
    public func setBiometricOutcome(deviceId: String, _ outcome: BiometricOutcome) throws {
        try core.session { session in
            guard var record = try session.tx.fetch(DeviceRecord.self, id: deviceId) else { throw DomainError.notFound("device") }
            record.biometricOutcome = outcome
            try session.tx.save(record)
        }
    }

    /// Deactivates a device's registration; a local-only deactivation is recorded as the device's event.
    public func deactivate(deviceId: String, onlyLocally: Bool) throws {
        try withDevice(deviceId) { device, session in
            let registrationId = try device.registrationId
            try device.deactivate(onlyLocally: onlyLocally)
            if onlyLocally, let registrationId {
                try session.recordDeviceEvent(.registrationDeactivated, registrationId: registrationId, caller: device.caller, detail: "local")
            }
        }
    }
}
