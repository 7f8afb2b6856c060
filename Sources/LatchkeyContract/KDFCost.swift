import Synchronization

/// The work factors of the slow KDFs.
///
/// Production values are fixed; the fuzzer lowers them for the whole process so it can run millions of
/// inputs (it looks for crashes, not for cost).
public enum KDFCost {
    public struct Factors: Sendable, Equatable {
        public var pinRounds: Int
        public var recoveryRounds: Int
        public var scryptRounds: Int
    }

    /// PBKDF2 × 10 000 for PINs, × 100 000 for recovery codes, scrypt N = 2^14 for passwords.
    public static let standard = Factors(pinRounds: 10_000, recoveryRounds: 100_000, scryptRounds: 1 << 14)
    /// Cheapest valid settings, for fuzzing only.
    public static let fuzzing = Factors(pinRounds: 1, recoveryRounds: 1, scryptRounds: 2)

    private static let current = Mutex(standard)

    /// The factors in force.
    public static var factors: Factors { current.withLock { $0 } }

    /// Lowers the work factors for this process (the fuzz harness only).
    public static func useForFuzzing() { current.withLock { $0 = fuzzing } }
}
