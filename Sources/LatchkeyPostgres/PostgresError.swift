/// A statement or connection failure, named by its SQLSTATE only: the server's message may
/// quote a value (a key, a hash), so it never leaves this type.
struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// The five-character SQLSTATE ("" when the connection failed before the server answered).
    var sqlState: String
    /// Where it happened, for logs (never a value).
    var context: String

    /// 40001 serialization failure, 40P01 deadlock: the transaction may run again from scratch.
    var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }

    /// LK001: a check the transaction deferred to its COMMIT found a row (`PostgresTransaction.noneMatch`).
    var isDeferredCheckFailure: Bool { sqlState == "LK001" }

    /// Class 08 (connection exception), 57P01–57P03 (shutdown, crash, cannot connect now), or
    /// no answer at all: the connection is gone.
    var isConnectionLost: Bool {
        sqlState.isEmpty || sqlState.hasPrefix("08") || sqlState == "57P01" || sqlState == "57P02" || sqlState == "57P03"
    }

    var description: String { "PostgreSQL \(context): SQLSTATE \(sqlState.isEmpty ? "none (no connection)" : sqlState)" }
}
