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
    /// What each device's next call is expected to need: the reads of its server half
    /// (`FollowUpReads`) and its PIN's salt.
    ///
    /// As its last committed call in this process left them; at most `foreseenDevices` devices are kept.
    private let foreseen = Mutex<[String: Foreseen]>([:])
    static let foreseenDevices = 4096

    struct Foreseen: Sendable {
        var reads: [StoreRead]
        var pinSalt: PinSalt?
    }

    public init(core: Latchkey) { self.core = core }

    /// Runs `body` on device `deviceId` in one transaction.
    ///
    /// `pin`, when the call is to unmask the PIN key with it, is derived before the transaction
    /// opens, under the salt the device held at its last call in this process (`PinDerivation`):
    /// the transaction then stays open for round trips only, however often it runs again.
    /// - Throws: `notFound` (device), and what `body` throws.
    public func withDevice<T>(_ deviceId: String, pin: String? = nil, _ body: (Device, ServerSession) throws -> T) throws -> T {
        let expected = foreseen.withLock { $0.removeValue(forKey: deviceId) }
        let derivation = try pin.flatMap { pin in
            try expected?.pinSalt.map { try PinDerivation(pin: pin, salt: $0.salt, keyLength: $0.keyLength) }
        }
        let (value, next) = try core.session { session in
            // The keychain comes with the device, and with them what the server half is expected
            // to read (one round trip): nearly every call reads the keychain before the server.
            session.tx.readAhead(expected?.reads ?? [])
            let (found, items) = try session.tx.fetch(
                DeviceRecord.self, id: deviceId, alongWith: DeviceItemRecord.self, where: StoreDeviceStorage.items(of: deviceId))
            guard let record = found else { throw DomainError.notFound("device") }
            var device = device(record, items, session)
            device.pinDerivation = derivation
            let value = try body(device, session)
            return (value, Foreseen(reads: session.followUp.reads, pinSalt: try device.pinSalt))
        }
        if !next.reads.isEmpty || next.pinSalt != nil {
            foreseen.withLock { kept in
                if kept.count >= Self.foreseenDevices { kept.removeAll() }
                kept[deviceId] = next
            }
        }
        return value
    }

    private func device(_ record: DeviceRecord, _ items: [DeviceItemRecord], _ session: ServerSession) -> Device {
        Device(
            storage: StoreDeviceStorage(tx: session.tx, deviceId: record.id, items: items), server: session, profile: record.profile,
            random: core.random, clock: core.clock, caller: .device(record.id), instance: instanceId)
    }

    /// Runs `body` on a device; `pin` as for `withDevice`.
    public func on<T>(_ deviceId: String, pin: String? = nil, _ body: (Device) throws -> T) throws -> T {
        try withDevice(deviceId, pin: pin) { device, _ in try body(device) }
    }

    /// Creates a simulated phone.
    /// - Throws: `alreadyExists`.
    public func create(_ new: NewDevice) throws -> String {
        try core.session { session in try insert(session.tx, new) }
    }

    func insert(_ tx: StoreTransaction, _ new: NewDevice) throws -> String {
        let deviceId = new.deviceId ?? core.random.identifier("dev")
        if try tx.fetch(DeviceRecord.self, id: deviceId) != nil {
            throw DomainError(.alreadyExists, "A device with this deviceId exists already", [(.kind, .string("device"))])
        }
        try tx.save(
            DeviceRecord(
                id: deviceId, biometry: new.biometry.rawValue, iCloudKeychain: new.iCloudKeychain,
                name: new.name, biometricOutcome: BiometricOutcome.match.rawValue, createdAt: core.clock.now))
        return deviceId
    }

    /// Sets what the biometric sensor answers from now on.
    /// - Throws: `notFound` (device).
    public func setBiometricOutcome(deviceId: String, _ outcome: BiometricOutcome) throws {
        try core.session { session in
            guard var record = try session.tx.fetch(DeviceRecord.self, id: deviceId) else { throw DomainError.notFound("device") }
            record.biometricOutcome = outcome.rawValue
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
