#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a transaction cost on PostgreSQL, as the store's trace log reports it: the time spent
/// inside the store's calls (waiting for the server, and turning records into statements and rows
/// into records; not the body's own work between them), the part of it spent waiting for the
/// server (from sending a round trip to having its results), round trips and statements.
struct PostgresCost {
    var nanoseconds: UInt64 = 0
    var waitNanoseconds: UInt64 = 0
    var roundTrips = 0
    var statements = 0
    /// Rows the server answered.
    var rows = 0

    static func + (lhs: PostgresCost, rhs: PostgresCost) -> PostgresCost {
        PostgresCost(
            nanoseconds: lhs.nanoseconds + rhs.nanoseconds, waitNanoseconds: lhs.waitNanoseconds + rhs.waitNanoseconds,
            roundTrips: lhs.roundTrips + rhs.roundTrips, statements: lhs.statements + rhs.statements, rows: lhs.rows + rhs.rows)
    }

    /// The monotonic clock, in nanoseconds.
    static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}
