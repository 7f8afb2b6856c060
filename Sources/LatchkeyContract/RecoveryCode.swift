/// The user's backup recovery code: chosen by the user (6 to 64 characters) or generated.
///
/// The server never sees it; the device derives the recovery key from it.
public enum RecoveryCode {
    public static let minLength = 6
    public static let maxLength = 64
    /// Wrong codes a registration allows before recovery locks.
    public static let maxWrongAttempts = 5

    /// 4 groups of 5 Base32 characters: 100 bits.
    public static func generate(_ random: RandomSource) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        return (0..<4).map { _ in random.string(count: 5, alphabet: alphabet) }.joined(separator: "-")
    }

    /// - Throws: `policyViolation` (`tooShort`, `tooLong`).
    public static func check(_ code: String) throws {
        var violations: [String] = []
        if code.count < minLength { violations.append("tooShort") }
        if code.count > maxLength { violations.append("tooLong") }
        guard violations.isEmpty else {
            throw DomainError(.policyViolation, "A recovery code has 6 to 64 characters", [(.violations, .strings(violations))])
        }
    }
}
