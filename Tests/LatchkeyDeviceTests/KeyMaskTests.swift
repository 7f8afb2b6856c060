import LatchkeyContract
import Testing

@testable import LatchkeyDevice

/// A new factor key masked under `secret` with a new salt, as the device keeps a PIN key.
private func maskedKey(_ random: RandomSource, secret: String) throws -> (key: [UInt8], salt: [UInt8], masked: [UInt8]) {
    let key = FactorKey.generate(random)
    let salt = random.bytes(16)
    return (key, salt, try KeyMask.mask(key, secret: secret, salt: salt, rounds: KeyMask.pinRounds))
}

/// The device masks its PIN key (and its recovery key) under a secret: the right secret gives
/// the key back, any other gives another key, and nothing stored tells the two apart.
@Suite struct KeyMaskTests {
    private let random = SeededRandomSource(seed: 11)

    @Test("the right PIN unmasks the key; a wrong one unmasks another well-formed key")
    func roundTrip() throws {
        let (key, salt, masked) = try maskedKey(random, secret: "2468")
        #expect(masked != key)
        #expect(masked.count == key.count)
        #expect(try KeyMask.unmask(masked, secret: "2468", salt: salt, rounds: KeyMask.pinRounds) == key)
        let wrong = try KeyMask.unmask(masked, secret: "2469", salt: salt, rounds: KeyMask.pinRounds)
        #expect(wrong != key)
        #expect(FactorKey.publicKey(of: wrong) != nil)
        #expect(FactorKey.publicKey(of: wrong)?.sec1 != FactorKey.publicKey(of: key)?.sec1)
    }

    @Test("the salt and the work factor are part of the mask")
    func saltAndRoundsMatter() throws {
        let (key, salt, masked) = try maskedKey(random, secret: "2468")
        #expect(try KeyMask.mask(key, secret: "2468", salt: random.bytes(16), rounds: KeyMask.pinRounds) != masked)
        #expect(try KeyMask.unmask(masked, secret: "2468", salt: salt, rounds: KeyMask.recoveryRounds) != key)
    }
}

/// A factor key signs the contract's payload so that its public key, and only for that payload
/// and role, verifies it.
@Suite struct FactorKeyTests {
    @Test("a signature verifies under the key's public half, not over another payload or role")
    func signAndVerify() throws {
        let random = SeededRandomSource(seed: 12)
        let key = FactorKey.generate(random)
        let publicKey = try #require(FactorKey.publicKey(of: key))
        let payload = SignedPayload(.authenticate, subject: "reg_1", challenge: "c1", role: .pin)
        let signature = try FactorKey.sign(payload, with: key)
        #expect(publicKey.verifies(signature, over: payload))
        #expect(!publicKey.verifies(signature, over: SignedPayload(.authenticate, subject: "reg_1", challenge: "c2", role: .pin)))
        #expect(!publicKey.verifies(signature, over: payload.signed(by: .device)))
        let other = try #require(FactorKey.publicKey(of: FactorKey.generate(random)))
        #expect(!other.verifies(signature, over: payload))
    }

    @Test("a handed-over key carries a proof its own public key verifies")
    func proofOfPossession() throws {
        let random = SeededRandomSource(seed: 13)
        let key = FactorKey.generate(random)
        let payload = SignedPayload(.activate, subject: "act_1", challenge: "c", role: .device)
        let handed = try #require(try FactorKey.handOver(key, payload))
        #expect(handed.publicKey.verifies(try #require(handed.proof), over: payload))
        #expect(try FactorKey.handOver([1, 2, 3], payload) == nil)
    }
}

/// What a device keeps on itself, and what may leave it in a backup.
@Suite struct DeviceItemTests {
    @Test("only the recovery data travels in backups, and synced passkeys in iCloud ones")
    func thisDeviceOnly() {
        for item in DeviceItem.allCases {
            #expect(item.thisDeviceOnly == (item.group != .recovery && item.group != .syncedPasskeys), "\(item.rawValue)")
            #expect(item.travels(inICloudBackup: false) == (item.group == .recovery), "\(item.rawValue)")
            #expect(item.travels(inICloudBackup: true) == !item.thisDeviceOnly, "\(item.rawValue)")
        }
        #expect(DeviceItem.pinMaskedKey.thisDeviceOnly)
        #expect(DeviceItem.possessionKey.thisDeviceOnly)
        #expect(DeviceItem.deviceBoundPasskeys.thisDeviceOnly)
        #expect(!DeviceItem.recoveryMaskedKey.thisDeviceOnly)
        #expect(!DeviceItem.syncedPasskeys.thisDeviceOnly)
    }
}

/// A PIN derived ahead of a transaction unmasks as `KeyMask` would, and only for the salt, the PIN
/// and the key length it was derived for.
@Suite struct PinDerivationTests {
    private let random = SeededRandomSource(seed: 14)

    @Test("a derivation made for the PIN and salt held unmasks the key KeyMask unmasks")
    func unmasksAsKeyMaskDoes() throws {
        let (key, salt, masked) = try maskedKey(random, secret: "2468")
        let derivation = try PinDerivation(pin: "2468", salt: salt, keyLength: masked.count)
        #expect(derivation.unmask(masked, pin: "2468", salt: salt) == key)
        // A wrong PIN derived ahead unmasks the same wrong key the device would derive.
        let wrong = try PinDerivation(pin: "2469", salt: salt, keyLength: masked.count)
        #expect(try wrong.unmask(masked, pin: "2469", salt: salt) == KeyMask.unmask(masked, secret: "2469", salt: salt, rounds: KeyMask.pinRounds))
    }

    @Test("another salt, another PIN, a canonically equivalent PIN or another key length is no match")
    func anyOtherInputIsNoMatch() throws {
        let (_, salt, masked) = try maskedKey(random, secret: "caf\u{E9}")
        let derivation = try PinDerivation(pin: "caf\u{E9}", salt: salt, keyLength: masked.count)
        #expect(derivation.unmask(masked, pin: "caf\u{E9}", salt: salt) != nil)
        #expect(derivation.unmask(masked, pin: "caf\u{E9}", salt: random.bytes(16)) == nil)
        #expect(derivation.unmask(masked, pin: "cafe", salt: salt) == nil)
        // Equal as Swift strings, different bytes: PBKDF2 takes the bytes.
        #expect("caf\u{E9}" == "cafe\u{301}")
        #expect(derivation.unmask(masked, pin: "cafe\u{301}", salt: salt) == nil)
        #expect(derivation.unmask(masked + [0], pin: "caf\u{E9}", salt: salt) == nil)
    }
}
