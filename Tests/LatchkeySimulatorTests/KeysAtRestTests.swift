import Crypto
import LatchkeyContract
import LatchkeyTestSupport
import Testing

@testable import LatchkeyCore
@testable import LatchkeyDevice
@testable import LatchkeySimulator

/// Security property 2 across both halves.
///
/// The phone keeps nothing a PIN guess could be checked against, the server keeps public keys
/// only, and only the server tells a wrong PIN (and counts it). `KeyMaskTests`
/// (LatchkeyDeviceTests) holds the masking itself.
@Suite struct KeysAtRestTests {
    @Test func deviceKeepsNoPublicKeyOrCheckForThePinKey() throws {
        let system = try makeSystem()
        let registrationId = try activatedWithPin(system)
        let items = try system.core.store.read { tx in
            try tx.fetchAll(DeviceItemRecord.self, where: [.equals(DeviceItemRecord.Columns.deviceId, "d1")])
        }
        let registration = try system.core.store.read { tx in try tx.fetch(RegistrationRecord.self, id: registrationId) }
        let pinPublic = try #require(registration?.pinPublicKey)
        // Only the masked key and its salt relate to the PIN; no item holds the public key
        // (or any 65-byte point of the device's) a guess could be checked against. The server's
        // public keys the phone keeps (its server key, the operation-signing key) check no guess.
        let names = Set(items.map(\.name))
        #expect(names.contains(DeviceItem.pinMaskedKey.rawValue))
        #expect(names.contains(DeviceItem.pinSalt.rawValue))
        let serverKeys = [DeviceItem.serverPublicKey.rawValue, DeviceItem.operationSigningKey.rawValue]
        for item in items where !serverKeys.contains(item.name) {
            #expect(item.value != pinPublic)
            #expect(item.value.count != 65)
        }
    }

    /// The server's half holds public keys only: no private key of the device's appears in it.
    @Test func serverKeepsPublicKeysOnly() throws {
        let system = try makeSystem()
        let registrationId = try activatedWithPin(system)
        _ = try system.on { try $0.startAddOrUpdate() }
        _ = try system.on { try $0.finishAddOrUpdate(activation: AuthParameter(method: .faceId), proof: AuthParameter(method: .pin, pin: "1234")) }
        let record = try #require(try system.core.store.read { tx in try tx.fetch(RegistrationRecord.self, id: registrationId) })
        let privateKeys = try system.core.store.read { tx in
            try [DeviceItem.possessionKey, .faceIdKey].compactMap { try StoreDeviceStorage(tx: tx, deviceId: "d1", core: system.core).item($0) }
        }
        #expect(privateKeys.count == 2)
        for publicKey in [record.possessionPublicKey, record.pinPublicKey, record.faceIdPublicKey].compactMap({ $0 }) {
            #expect(publicKey.count == 65 && publicKey.first == 0x04, "an uncompressed P-256 public key")
            for privateKey in privateKeys {
                #expect(!Array(publicKey).containsSubsequence(privateKey))
                #expect(FactorKey.publicKey(of: privateKey) != nil)
            }
        }
        let derived = Set(privateKeys.compactMap { FactorKey.publicKey(of: $0)?.sec1 })
        #expect(derived == [record.possessionPublicKey, record.faceIdPublicKey ?? []])
    }

    /// The phone's half lives in the same store: its rows hold its key material sealed, so reading the store alone gives neither a
    /// private key to sign with nor a masked PIN key to try PINs against the server's public key offline (properties 1 and 2).
    @Test func phoneKeyMaterialIsSealedInTheStore() throws {
        let system = try makeSystem()
        _ = try activatedWithPin(system)
        let rows = try system.core.store.read { tx in
            try tx.fetchAll(DeviceItemRecord.self, where: [.equals(DeviceItemRecord.Columns.deviceId, "d1")])
        }
        let storage = { (tx: StoreTransaction) in StoreDeviceStorage(tx: tx, deviceId: "d1", core: system.core) }
        for item in [DeviceItem.possessionKey, .pinMaskedKey] {
            let value = try #require(try system.core.store.read { tx in try storage(tx).item(item) })
            let row = try #require(rows.first { $0.name == item.rawValue })
            #expect(!row.value.containsSubsequence(value), "\(item.rawValue) is sealed in its row")
            #expect(system.core.openDeviceSecret(row.value, rowId: row.id) == value)
            #expect(system.core.openDeviceSecret(row.value, rowId: row.id + "x") == nil, "sealed for its own row only")
        }
        let registrationRow = try #require(rows.first { $0.name == DeviceItem.registrationId.rawValue })
        #expect(String(decoding: registrationRow.value, as: UTF8.self).hasPrefix("reg_"), "what the store finds rows by stays readable")
    }

    @Test func serverTellsAndCountsAWrongPin() throws {
        let system = try makeSystem()
        let registrationId = try activatedWithPin(system)
        _ = try system.on { try $0.startAuthentication() }
        let error = domainError { _ = try system.on { try $0.finishAuthentication(AuthParameter(method: .pin, pin: "4321"), tokenPurpose: .none) } }
        #expect(error?.reason == .authenticationFailed)
        #expect(error?.detail(.remainingAttempts) == .int(4))
        #expect(try system.failedAttempts(registrationId) == 1)
    }
}

extension Array where Element == UInt8 {
    func containsSubsequence(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { Array(self[$0..<$0 + needle.count]) == needle }
    }
}
