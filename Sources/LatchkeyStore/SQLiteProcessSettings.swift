import CSQLiteTuning

/// SQLite's process-wide settings, made once, before the process's first connection (SQLite takes
/// them only before it initializes).
enum SQLiteProcessSettings {
    /// Memory statistics off: SQLite otherwise takes a mutex around every allocation to count it
    /// (~20 k instructions of a passkey sign-in), and nothing here reads the counts.
    static let made: Void = { _ = CSQLiteTuning_memoryStatisticsOff() }()
}
