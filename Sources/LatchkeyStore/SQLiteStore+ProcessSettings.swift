import CSQLiteTuning

extension SQLiteStore {
    /// Makes SQLite's process-wide settings; call once, at the start of a process, before any thread uses SQLite (SQLite takes
    /// them only before it initializes, and `sqlite3_config` is not safe beside another thread's use).
    ///
    /// Memory statistics off: SQLite otherwise takes a mutex around every allocation to count it (~20 k instructions of a passkey
    /// sign-in), and nothing here reads the counts. A process that does not call it (the test suites) runs with SQLite's defaults.
    public static func prepareProcess() {
        _ = CSQLiteTuning_memoryStatisticsOff()
    }
}
