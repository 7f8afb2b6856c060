import LatchkeyStorage

/// One call of `PostgresStore.transaction` across its attempts, as a state machine: how an
/// attempt ended (`End`) decides the next step (`Step`), every decision in `next(after:now:)`;
/// `PostgresStore` runs the attempts and does what the step says.
///
/// A write is SERIALIZABLE: a serialization failure or deadlock runs the body again from scratch,
/// after a jittered pause, within `PostgresStore.maxAttempts` and the retry budget; after
/// `PostgresStore.attemptsBeforeQueueing` attempts the body runs alone. A connection lost before
/// COMMIT went out lost nothing: one fresh connection may run it again. One lost with COMMIT in
/// flight is decided by the transaction's commit marker (`PostgresCommitMarker`). A check the body
/// deferred to COMMIT that found a row runs the body again, asking first (`PostgresTransaction.noneMatch`).
struct PostgresTransactionRun {
    /// How an attempt ended.
    enum End<T> {
        /// It committed (a read: it finished), with the body's value.
        case committed(T)
        /// The body threw something other than a statement failure: rolled back, rethrown as it is.
        case bodyFailed(any Error)
        /// A statement failed on a live connection (a read, a write, COMMIT): rolled back.
        case refused(PostgresError)
        /// The connection was lost before COMMIT went out: nothing was written.
        case lostBeforeCommit
        /// The connection was lost with COMMIT in flight; the marker tells whether it committed (nil:
        /// the transaction had nothing to write, so nothing was lost).
        case lostDuringCommit(T, PostgresCommitMarker?)
    }

    /// What the store does next.
    enum Step<T> {
        /// Answers the body's value.
        case answer(T)
        /// Fails the call.
        case fail(any Error)
        /// Runs the body again at once.
        case runAgain
        /// Runs the body again on a fresh connection, without the pause after a failed connection.
        case reconnectThenRunAgain
        /// Runs the body again after a jittered pause (`PostgresStore.pause(attempt:)`).
        case pauseThenRunAgain
        /// Asks a new connection whether the marker's transaction committed: if it did, answers the
        /// value; if not, or no server can tell in time, the call is `StoreUnavailable`.
        case askWhetherCommitted(PostgresCommitMarker, T)
    }

    let writes: Bool
    /// When the call began (`PostgresStore.nowMilliseconds`), for the retry budget.
    let started: Int64
    /// Attempts begun so far.
    private(set) var attempt = 0
    /// Whether a connection lost before COMMIT was replaced already (once per call).
    private(set) var reconnected = false
    /// Whether `noneMatch` may defer its check to COMMIT: not once such a check failed.
    private(set) var defersChecks = true

    /// What a call answers when the connection is gone and nothing can tell the outcome.
    static let lost = StoreUnavailable(retryAfterSeconds: 1, reason: "the connection to PostgreSQL was lost")

    init(writes: Bool, started: Int64) {
        self.writes = writes
        self.started = started
    }

    /// Whether the attempt about to begin runs alone: a write that failed `attemptsBeforeQueueing`
    /// times takes the writers' lock exclusively (see `PostgresStore.transaction`).
    var alone: Bool { writes && attempt > PostgresStore.attemptsBeforeQueueing }

    /// Counts the attempt about to begin.
    mutating func begin() { attempt += 1 }

    /// The step after an attempt that ended so, at `now` (milliseconds, as `started`).
    mutating func next<T>(after end: End<T>, now: Int64) -> Step<T> {
        switch end {
        case .committed(let value):
            return .answer(value)
        case .bodyFailed(let error):
            return .fail(error)
        case .lostBeforeCommit:
            guard !reconnected else { return .fail(Self.lost) }
            reconnected = true
            return .reconnectThenRunAgain
        case .lostDuringCommit(let value, let marker):
            guard let marker else { return .answer(value) }
            return .askWhetherCommitted(marker, value)
        case .refused(let error) where error.isDeferredCheckFailure && defersChecks:
            defersChecks = false
            return .runAgain
        case .refused(let error) where error.isRetryable:
            guard attempt < PostgresStore.maxAttempts, now - started < PostgresStore.retryBudgetMilliseconds else {
                return .fail(StoreUnavailable(retryAfterSeconds: 1, reason: "too many concurrent writers (serialization failures)"))
            }
            return .pauseThenRunAgain
        case .refused(let error) where error.code == .lockNotAvailable:
            return .fail(StoreUnavailable(retryAfterSeconds: 1, reason: "a lock was held past the lock timeout"))
        case .refused(let error):
            return .fail(error)
        }
    }
}
