/// The user's backup recovery code: chosen by the user (6 to 64 characters) or generated.
/// The server never sees it; the device derives the recovery key from it.
public enum RecoveryCode {
    static let minLength = 6
    static let maxLength = 64
    static let maxWrongAttempts = 5

    /// 4 groups of 5 Base32 characters: 100 bits.
    public static func generate(_ random: RandomSource) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        return (0..<4).map { _ in random.string(count: 5, alphabet: alphabet) }.joined(separator: "-")
    }

    /// - Throws: `policyViolation` (`tooShort`, `tooLong`).
    static func check(_ code: String) throws {
        var violations: [String] = []
        if code.count < minLength { violations.append("tooShort") }
        if code.count > maxLength { violations.append("tooLong") }
        guard violations.isEmpty else {
            throw DomainError(.policyViolation, "A recovery code has 6 to 64 characters", [("violations", .strings(violations))])
        }
    }
}

/// The device's recovery data (backed up): the recovery key masked under the code with a
/// slow KDF and a random salt — no public key, MAC or checksum, so a stolen backup cannot
/// test guesses offline.
struct DeviceRecovery {
    let keychain: DeviceKeychain
    let random: RandomSource

    var registrationId: String? { get throws { try keychain.string(.recoveryRegistrationId) } }

    var isActivated: Bool { get throws { try keychain.get(.recoveryMaskedKey) != nil } }

    /// Makes a recovery key under `code`; returns its public key for the server.
    func create(code: String, registrationId: String) throws -> [UInt8] {
        let key = FactorKey.generate(random)
        let salt = random.bytes(16)
        try keychain.set(.recoveryRegistrationId, registrationId)
        try keychain.set(.recoverySalt, salt)
        try keychain.set(.recoveryMaskedKey, KeyMask.mask(key, secret: code, salt: salt, rounds: KeyMask.recoveryRounds))
        return FactorKey.publicKey(of: key) ?? []
    }

    /// Signs with whatever key `code` unmasks (the device cannot tell a right code from a wrong one).
    func sign(_ message: [UInt8], code: String) throws -> [UInt8] {
        let salt = try keychain.get(.recoverySalt) ?? []
        let masked = try keychain.get(.recoveryMaskedKey) ?? []
        return FactorKey.sign(message, with: KeyMask.unmask(masked, secret: code, salt: salt, rounds: KeyMask.recoveryRounds))
    }
}
