/// Signatures a device produced to answer a challenge: possession, plus the factor's.
struct FactorSignatures {
    var possession: [UInt8]
    var factor: [UInt8]?
}

/// The phone's side of the factors: makes keys at activation, unlocks them to sign.
/// The PIN key is masked under the PIN with no integrity check, so the phone cannot tell a
/// wrong PIN from a right one; the biometric keys are released only on a biometric match.
struct DeviceFactors {
    let keychain: DeviceKeychain
    let device: DeviceRecord
    let random: RandomSource

    /// Refuses on the phone what never reaches the server: a missing sensor, no match, cancel.
    func checkBiometry(_ method: AuthMethod) throws {
        guard method.isBiometric else { return }
        guard device.supports(method) else {
            throw DomainError(.biometryUnavailable, "This device has no \(method.rawValue)")
        }
        switch device.outcome {
        case .match: return
        case .noMatch: throw DomainError(.biometryFailed, "The device did not recognise the face or finger; nothing was sent")
        case .cancel: throw DomainError(.biometryCancelled, "The biometric prompt was cancelled; nothing was sent")
        }
    }

    /// Creates the possession key; returns its public key.
    func createPossessionKey() throws -> [UInt8] {
        let key = FactorKey.generate(random)
        try keychain.set(.possessionKey, key)
        return FactorKey.publicKey(of: key) ?? []
    }

    /// Creates (or replaces) the key of a two-factor method; returns its public key.
    func createFactorKey(_ parameter: AuthParameter) throws -> [UInt8]? {
        let key = FactorKey.generate(random)
        switch parameter.method {
        case .device:
            return nil
        case .pin:
            let salt = random.bytes(16)
            try keychain.set(.pinSalt, salt)
            try keychain.set(.pinMaskedKey, KeyMask.mask(key, secret: parameter.pin ?? "", salt: salt, rounds: KeyMask.pinRounds))
        case .touchId:
            try keychain.set(.touchIdKey, key)
        case .faceId:
            try keychain.set(.faceIdKey, key)
        }
        return FactorKey.publicKey(of: key)
    }

    func removeFactorKey(_ method: AuthMethod) throws {
        switch method {
        case .device: return
        case .pin:
            try keychain.remove(.pinSalt)
            try keychain.remove(.pinMaskedKey)
        case .touchId: try keychain.remove(.touchIdKey)
        case .faceId: try keychain.remove(.faceIdKey)
        }
    }

    /// Signs `message` with the possession key and the factor of `parameter` (after the
    /// biometric check). A wrong PIN signs with a wrong key; the phone cannot know.
    func sign(_ message: [UInt8], _ parameter: AuthParameter) throws -> FactorSignatures {
        try checkBiometry(parameter.method)
        let possessionKey = try keychain.get(.possessionKey) ?? []
        let possession = FactorKey.sign(message, with: possessionKey)
        let factorKey: [UInt8]?
        switch parameter.method {
        case .device:
            factorKey = nil
        case .pin:
            let salt = try keychain.get(.pinSalt) ?? []
            let masked = try keychain.get(.pinMaskedKey) ?? []
            factorKey = KeyMask.unmask(masked, secret: parameter.pin ?? "", salt: salt, rounds: KeyMask.pinRounds)
        case .touchId:
            factorKey = try keychain.get(.touchIdKey) ?? []
        case .faceId:
            factorKey = try keychain.get(.faceIdKey) ?? []
        }
        return FactorSignatures(possession: possession, factor: factorKey.map { FactorKey.sign(message, with: $0) })
    }
}

extension RegistrationRecord {
    /// The server's check: the possession signature and, for a two-factor method, the factor's.
    func verifies(_ signatures: FactorSignatures, method: AuthMethod, message: [UInt8]) -> Bool {
        let possessionOK = FactorKey.verify(signatures.possession, over: message, publicKey: possessionPublicKey)
        guard method.isTwoFactor else { return possessionOK }
        guard let publicKey = publicKey(for: method), let factor = signatures.factor else { return false }
        let factorOK = FactorKey.verify(factor, over: message, publicKey: publicKey)
        return possessionOK && factorOK
    }
}
