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
    /// What each device's next call is expected to read (`FollowUpReads`).
    ///
    /// As its last committed call in this process foresaw it; at most `foreseenDevices` devices are kept.
    private let foreseen = Mutex<[String: [StoreRead]]>([:])
    static let foreseenDevices = 4096

    public init(core: Latchkey) { self.core = core }

    /// Runs `body` on device `deviceId` in one transaction.
    /// - Throws: `notFound` (device), and what `body` throws.
    public func withDevice<T>(_ deviceId: String, _ body: (Device, ServerSession) throws -> T) throws -> T {
        let expected = foreseen.withLock { $0.removeValue(forKey: deviceId) } ?? []
        let (value, next) = try core.session { session in
            // The keychain comes with the device, and with them what the server half is expected
            // to read (one round trip): nearly every call reads the keychain before the server.
            session.tx.readAhead(expected)
            let (found, items) = try session.tx.fetch(
                DeviceRecord.self, id: deviceId, alongWith: DeviceItemRecord.self, where: StoreDeviceStorage.items(of: deviceId))
            guard let record = found else { throw DomainError.notFound("device") }
            return (try body(device(record, items, session), session), session.followUp.reads)
        }
        if !next.isEmpty {
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

    /// Runs `body` on a device.
    public func on<T>(_ deviceId: String, _ body: (Device) throws -> T) throws -> T {
        try withDevice(deviceId) { device, _ in try body(device) }
    }

    /// Creates a simulated phone.
    /// - Throws: `alreadyExists`.
    public func create(_ new: NewDevice) throws -> String {
        try core.session { session in try insert(session.tx, new) }
    }

    func insert(_ tx: StoreTransaction, _ new: NewDevice) throws -> String {
        let deviceId = new.deviceId ?? core.random.identifier("dev")
        if try tx.fetch(DeviceRecord.self, id: deviceId) != nil {
            throw DomainError(.alreadyExists, "A device with this deviceId exists already", [("kind", .string("device"))])
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
