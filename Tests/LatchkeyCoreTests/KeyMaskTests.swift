import Crypto
import Testing
@testable import LatchkeyCore

/// Security property 2: the device's data alone cannot tell a right PIN from a wrong one.
@Suite struct KeyMaskTests {
    @Test func wrongPinUnmasksToAnotherValidKeyWithNothingToCompareAgainst() throws {
        let random = SeededRandomSource(seed: 7)
        let key = FactorKey.generate(random)
        let salt = random.bytes(16)
        let masked = KeyMask.mask(key, secret: "1234", salt: salt, rounds: KeyMask.pinRounds)

        let right = KeyMask.unmask(masked, secret: "1234", salt: salt, rounds: KeyMask.pinRounds)
        let wrong = KeyMask.unmask(masked, secret: "9999", salt: salt, rounds: KeyMask.pinRounds)
        #expect(right == key)
        #expect(wrong != key)
        // Both unmask to well-formed keys of the same length: no padding or checksum fails.
        #expect(right.count == wrong.count)
        #expect(FactorKey.publicKey(of: right) != nil)
        #expect(FactorKey.publicKey(of: wrong) != nil)
        // The stored bytes are exactly key ⊕ stream: no MAC, no tag, nothing extra.
        #expect(masked.count == key.count)
    }

    @Test func deviceKeepsNoPublicKeyOrCheckForThePinKey() throws {
        let system = try makeSystem()
        let registrationId = try activatedWithPin(system)
        let items = try system.store.read { tx in try tx.fetchAll(DeviceItemRecord.self, where: [.equals("deviceId", "d1")]) }
        let registration = try system.store.read { tx in try tx.fetch(RegistrationRecord.self, id: registrationId) }
        let pinPublic = try #require(registration?.pinPublicKey)
        // Only the masked key and its salt relate to the PIN; no item holds the public key
        // (or any 65-byte point) a guess could be checked against.
        let names = Set(items.map(\.name))
        #expect(names.contains(DeviceItem.pinMaskedKey.rawValue))
        #expect(names.contains(DeviceItem.pinSalt.rawValue))
        for item in items {
            #expect(item.value != pinPublic)
            #expect(item.value.count != 65)
        }
    }

    @Test func serverTellsAndCountsAWrongPin() throws {
        let system = try makeSystem()
        let registrationId = try activatedWithPin(system)
        _ = try system.startAuthentication(deviceId: "d1")
        let error = domainError { _ = try system.finishAuthentication(deviceId: "d1", AuthParameter(method: .pin, pin: "4321"), tokenPurpose: .none) }
        #expect(error?.reason == .authenticationFailed)
        #expect(error?.detail("remainingAttempts") == .int(4))
        #expect(try system.registrationInfo(registrationId).failedAttempts == 1)
    }
}
