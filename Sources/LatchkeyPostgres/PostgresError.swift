/// A statement or connection failure, named by its SQLSTATE only: the server's message may
/// quote a value (a key, a hash), so it never leaves this type.
struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// A SQLSTATE, named as the PostgreSQL manual's appendix A names it (postgres-nio's
    /// `PostgresError.Code`); the store decides by these, never by a string of its own.
    struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The five characters ("" for `noAnswer`).
        let raw: String

        init(_ raw: String) { self.raw = raw }

        /// No SQLSTATE: the connection failed before the server answered.
        static let noAnswer = Code("")
        static let serializationFailure = Code("40001")
        static let deadlockDetected = Code("40P01")
        static let adminShutdown = Code("57P01")
        static let crashShutdown = Code("57P02")
        static let cannotConnectNow = Code("57P03")
        /// A lock wait ran past `lock_timeout`.
        static let lockNotAvailable = Code("55P03")
        /// Latchkey's own (migration v10, `latchkey_require_none`): a check the transaction deferred
        /// to its COMMIT found a row (`PostgresTransaction.noneMatch`).
        static let deferredCheckFailed = Code("LK001")
        /// Latchkey's own: a value came back in a form the store does not read (a bytea not in hex, an
        /// integer not in decimal), so the statement's rows are refused rather than read as null.
        static let unreadableValue = Code("LK002")

        /// Class 08: connection exception.
        var isConnectionException: Bool { raw.hasPrefix("08") }

        var description: String { raw.isEmpty ? "none (no connection)" : raw }
    }

    var code: Code
    /// Where it happened, for logs (never a value).
    var context: String

    /// A serialization failure or a deadlock: the transaction may run again from scratch.
    var isRetryable: Bool { code == .serializationFailure || code == .deadlockDetected }

    /// A check the transaction deferred to its COMMIT found a row: it runs again, asking first.
    var isDeferredCheckFailure: Bool { code == .deferredCheckFailed }

    /// A connection exception, a shutdown or a server that cannot take connections now, or no answer
    /// at all: the connection is gone.
    var isConnectionLost: Bool {
        code == .noAnswer || code.isConnectionException || code == .adminShutdown || code == .crashShutdown || code == .cannotConnectNow
    }

    var description: String { "PostgreSQL \(context): SQLSTATE \(code)" }
}
