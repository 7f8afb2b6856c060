import Foundation
import LatchkeyStorage
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The PostgreSQL store, through libpq: one connection per process, opened and migrated on
/// first use and reopened by itself after the server went away.
///
/// Every write is a SERIALIZABLE transaction. When PostgreSQL refuses it (a serialization failure,
/// a deadlock) the whole body runs again from scratch, on a fresh snapshot, with a short jittered
/// pause, up to `maxAttempts` times within `retryBudgetMilliseconds` (`PostgresTransactionRun`); the
/// domain publishes a transaction's effects only after the store returns, so a body run twice
/// publishes once. Reads are REPEATABLE READ READ ONLY snapshots. A lost connection (a connection
/// exception, a shutdown: `PostgresError.isConnectionLost`) is `StoreUnavailable`: nothing
/// half-written stays (PostgreSQL rolls back a transaction whose connection is gone), and the next
/// call reconnects.
public final class PostgresStore: Store, Sendable {
    public let kind = StoreKind.postgresql
    private let conninfo: String
    /// At trace level, one line per transaction: its time in the store and the part of it spent
    /// waiting for the server, round trips, statements and attempts (what `bench/stores.py` reads;
    /// never a value from a row).
    private let logger: Logger
    private let key: [UInt8]
    public let unconfirmedKey: UnconfirmedKey?
    /// This process's row of commit markers (see `PostgresCommitMarker`).
    private let writerId = Hex.encode((0..<16).map { _ in UInt8.random(in: 0...255) })
    /// The application name of this process's connections: a lost one is found by it (`lostConnections`).
    private var applicationName: String { "latchkey " + writerId }
    /// The one connection: one transaction at a time on it.
    private let connectionSlot = Mutex(ConnectionSlot())
    /// How often one body may run, and for how long, before the call answers `StoreUnavailable`.
    ///
    /// Serialization failures include false positives (predicate locks are kept per index page, so writers
    /// of neighbouring rows can fail each other): a generous budget.
    static let maxAttempts = 60
    static let retryBudgetMilliseconds: Int64 = 5000
    /// Attempts before a body runs alone (see `transaction`).
    static let attemptsBeforeQueueing = 8
    /// The writers' advisory lock ("latchkew" in ASCII; the migration lock is "latchkey").
    static let writerLockKey: Int64 = 0x6C61_7463_686B_6577
    /// How long a call whose COMMIT was cut off waits for a server that can say whether it
    /// committed (a failover takes this long at most, or the answer is "unknown").
    static let commitStatusWaitMilliseconds: Int64 = 10_000
    /// After a failed connection attempt, calls answer `StoreUnavailable` at once for this long.
    static let reconnectPauseMilliseconds: Int64 = 500

    /// Connects and migrates.
    ///
    /// `key` is the keyed-hash key (from `--key-file`; never stored in the database); `unconfirmedKey` keeps or drops it when it was
    /// not found in place (see `Store.unconfirmedKey`).
    /// - Throws: `StoreUnavailable` when the server cannot be reached.
    public init(
        conninfo: String, key: [UInt8], unconfirmedKey: UnconfirmedKey? = nil, logger: Logger = Logger(label: "latchkey.postgresql")
    ) throws {
        self.conninfo = conninfo
        self.key = key
        self.unconfirmedKey = unconfirmedKey
        self.logger = logger
        try connectionSlot.withLock { _ = try connection(&$0) }
    }

    public func secretKey(make: () -> [UInt8]) throws -> [UInt8] { key }

    public func write<T>(_ body: (StoreTransaction) throws -> T) throws -> T {
        try transaction(begin: "BEGIN ISOLATION LEVEL SERIALIZABLE", writes: true, body)
    }

    public func read<T>(_ body: (StoreTransaction) throws -> T) throws -> T {
        try transaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", writes: false, body)
    }

    /// How many transactions ran again after a serialization failure or deadlock (benchmarks).
    public var retries: Int { connectionSlot.withLock { $0.retries } }

    /// Runs `body` in a transaction, again as `PostgresTransactionRun` decides, and logs its cost.
    ///
    /// An attempt: BEGIN waits to go out with the body's first read (or with COMMIT); the writes,
    /// the outbox entry (if any) and the commit marker go in the round trip of COMMIT; a statement
    /// failure decides how the attempt ended, even when the body wrapped or swallowed it. Writers
    /// share one advisory lock; a body that failed `attemptsBeforeQueueing` times takes it alone
    /// (session-level, before its snapshot is taken), waits for the writers in flight, holds back new
    /// ones, and so cannot fail again: every write gets through however hot the rows. Read-only
    /// snapshots take no part.
    private func transaction<T>(begin: String, writes: Bool, _ body: (StoreTransaction) throws -> T) throws -> T {
        try connectionSlot.withLock { slot in
            var run = PostgresTransactionRun(writes: writes, started: Self.nowMilliseconds())
            var spent = PostgresCost()
            defer {
                logger.trace(
                    "transaction",
                    metadata: [
                        "kind": "\(writes ? "write" : "read")", "storeMicroseconds": "\(spent.nanoseconds / 1000)",
                        "waitMicroseconds": "\(spent.waitNanoseconds / 1000)", "roundTrips": "\(spent.roundTrips)",
                        "statements": "\(spent.statements)", "rows": "\(spent.rows)", "attempts": "\(run.attempt)",
                    ])
            }
            while true {
                run.begin()
                let end: PostgresTransactionRun.End<T>
                let connection = try connection(&slot)
                let tx = PostgresTransaction(connection: connection)
                tx.defersChecks = run.defersChecks
                let alone = run.alone
                var committing: (value: T, marker: PostgresCommitMarker?)?
                do {
                    if alone { try connection.execute("SELECT pg_advisory_lock(\(Self.writerLockKey))") }
                    tx.open(begin, first: writes && !alone ? "SELECT pg_advisory_xact_lock_shared(\(Self.writerLockKey))" : nil)
                    do {
                        let value = try body(tx)
                        var marker: PostgresCommitMarker?
                        if writes, tx.writes {
                            slot.commits += 1
                            marker = PostgresCommitMarker(writer: writerId, number: slot.commits)
                        }
                        committing = (value, marker)
                        try tx.timed { try tx.commit(marking: marker) }
                        end = .committed(value)
                    } catch let error where !(error is PostgresError) && tx.failure == nil {
                        _ = try? connection.execute("ROLLBACK")
                        end = .bodyFailed(error)
                    }
                } catch {
                    // A statement failure decides, even when the body wrapped or swallowed it.
                    let failure = tx.failure ?? (error as? PostgresError) ?? PostgresError(code: .noAnswer, context: "transaction")
                    if failure.isConnectionLost {
                        slot.connection = nil
                        slot.downSince = Self.nowMilliseconds()
                        end = committing.map { .lostDuringCommit($0.value, $0.marker) } ?? .lostBeforeCommit
                    } else {
                        _ = try? connection.execute("ROLLBACK")
                        end = .refused(failure)
                    }
                }
                spent = spent + tx.cost
                if alone { _ = try? connection.execute("SELECT pg_advisory_unlock(\(Self.writerLockKey))") }
                switch run.next(after: end, now: Self.nowMilliseconds()) {
                case .answer(let value):
                    return value
                case .fail(let error):
                    throw error
                case .runAgain:
                    continue
                case .reconnectThenRunAgain:
                    slot.downSince = nil
                case .pauseThenRunAgain:
                    slot.retries += 1
                    Self.pause(attempt: run.attempt)
                case .askWhetherCommitted(let marker, let value):
                    guard committed(marker, &slot) else { throw PostgresTransactionRun.lost }
                    return value
                }
            }
        }
    }

    /// Whether the transaction of `marker` committed, asked on a new connection, again and again until a server that accepts writes answers (a
    /// failover: the old primary is gone and the standby not yet promoted), for up to `commitStatusWaitMilliseconds` without an answer.
    ///
    /// Where the lookup's wait for the writer's row times out, something still holds that row: only this process's lost
    /// connection can (the row is this process's own), and the server says what it is doing (`lostConnections`). Waiting for
    /// its synchronous standby, its COMMIT may yet land, so it is waited for as long as it waits — an answer before would be
    /// wrong if it then committed (PROTOCOL: "never a result that the new primary lacks, never both"), and every COMMIT on
    /// that server waits as long; waiting for input (cut off before its COMMIT arrived), it never will, so it is ended and
    /// asked again. A row that does not show the commit is believed only once no such session is left. False when it did not
    /// commit, or when no server answered in time.
    private func committed(_ marker: PostgresCommitMarker, _ slot: inout ConnectionSlot) -> Bool {
        var started = Self.nowMilliseconds()
        var toldInFlight = false
        var unknownHolders = 0
        while true {
            slot.downSince = nil
            if let connection = try? connection(&slot) {
                // The wait for a transaction still in flight is bounded by what is left of the budget.
                let left = max(Self.commitStatusWaitMilliseconds - (Self.nowMilliseconds() - started), 1)
                do {
                    let results = try connection.pipeline([
                        PostgresStatement(sql: "BEGIN", parameters: []),
                        PostgresStatement(sql: "SELECT set_config('lock_timeout', $1, true)", parameters: [.text("\(left)")]),
                        PostgresStatement(sql: PostgresCommitMarker.lastCommitted, parameters: [.text(marker.writer)]),
                        PostgresStatement(sql: "COMMIT", parameters: []),
                    ])
                    if case .int(let number)? = results[2].rows.first?.first, number == marker.number { return true }
                    // Not committed yet: the answer is final only once no session of this process can still commit it (one
                    // left behind by an answer given up on may not have reached the marker).
                    switch lostConnections(on: connection) {
                    case .gone: return false
                    case .unanswered: slot.connection = nil
                    case .inFlight, .ended: break
                    }
                    started = Self.nowMilliseconds()
                    usleep(100_000)
                    continue
                } catch let error as PostgresError where error.code == .lockNotAvailable {
                    _ = try? connection.execute("ROLLBACK")
                    switch lostConnections(on: connection) {
                    case .inFlight:
                        if !toldInFlight {
                            logger.warning("a COMMIT whose connection was lost is still running on the server; waiting for it to end")
                            toldInFlight = true
                        }
                        started = Self.nowMilliseconds()
                        continue
                    case .ended:
                        started = Self.nowMilliseconds()
                        continue
                    case .gone:
                        // It ended between the lock's timeout and the question: the next lookup finds the row free.
                        unknownHolders += 1
                        guard unknownHolders < 3 else { return false }
                        continue
                    case .unanswered:
                        // The server went away with the question (a failover): ask the next one, with a fresh budget.
                        slot.connection = nil
                        started = Self.nowMilliseconds()
                    }
                } catch let error as PostgresError where !error.isConnectionLost {
                    // The server refused.
                    _ = try? connection.execute("ROLLBACK")
                    return false
                } catch {
                    slot.connection = nil
                }
            }
            if Self.nowMilliseconds() - started >= Self.commitStatusWaitMilliseconds { return false }
            usleep(100_000)
        }
    }

    /// What this process's other connections on the server of `connection` are doing, known by their application name.
    private enum LostConnections {
        /// One is still running a statement (a lock wait included, which the lock timeout ends) or its COMMIT (waiting for its
        /// synchronous standby, a WAL flush).
        case inFlight
        /// One or more waited for input that never comes (idle, in a transaction or not): they were ended (their transactions
        /// roll back).
        case ended
        /// None is left that could hold the row (an idle one holds nothing).
        case gone
        /// The server did not answer.
        case unanswered
    }

    private func lostConnections(on connection: PostgresConnection) -> LostConnections {
        // Every other session of this name is a connection this process lost or gave up on (its notifier's have other names).
        let others = "application_name = $1 AND pid <> pg_backend_pid()"
        // In flight: running a statement (a lock wait ends at the connection's lock_timeout) or its COMMIT waiting for the
        // synchronous standby. Not in flight: waiting for input from the client, idle or not, which never comes (a connection
        // given up on was reset, not closed with its unsent bytes): ended, it can never commit. Written so that no NULL column
        // leaves a session out of both.
        let inFlight = "(wait_event IS NOT DISTINCT FROM 'SyncRep' OR (state = 'active' AND wait_event IS DISTINCT FROM 'ClientRead'))"
        do {
            let results = try connection.pipeline([
                PostgresStatement(
                    sql: "SELECT count(*) FROM pg_stat_activity WHERE \(others) AND \(inFlight)", parameters: [.text(applicationName)]),
                // One statement finds and ends them, so no pid is reused in between; the aggregate's filter runs only on the rows
                // the WHERE kept (a qualifier there could be reordered before the others).
                PostgresStatement(
                    sql: "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity WHERE \(others) AND NOT \(inFlight)",
                    parameters: [.text(applicationName)]),
            ])
            func count(_ index: Int) -> Int64 {
                if case .int(let number)? = results[index].rows.first?.first { return number }
                return 0
            }
            if count(0) > 0 { return .inFlight }
            return count(1) > 0 ? .ended : .gone
        } catch let error as PostgresError where error.isConnectionLost {
            return .unanswered
        } catch {
            // Refused: as if none were left (asked at most three times in a row, then "not committed" as before).
            return .gone
        }
    }

    /// The open connection, or a new one (migrated on the first connection of this process).
    private func connection(_ slot: inout ConnectionSlot) throws -> PostgresConnection {
        if let open = slot.connection, open.isUp { return open }
        slot.connection = nil
        if let since = slot.downSince, Self.nowMilliseconds() - since < Self.reconnectPauseMilliseconds {
            throw StoreUnavailable(retryAfterSeconds: 1, reason: "PostgreSQL cannot be reached")
        }
        do {
            let connection = try PostgresConnection(conninfo: conninfo, applicationName: applicationName)
            // A sequential scan takes a predicate lock on the whole table, so two processes
            // working on different rows of a small table would fail each other's SERIALIZABLE
            // transactions; every lookup of the domain has an index (PostgreSQL manual 13.2.3
            // advises steering the planner to index scans for this).
            // Plain index scans, not bitmap ones: only they mark the index entries of dead rows
            // (a keychain item or challenge deleted a moment ago) so the next scan skips them.
            // No JIT: the penalty that steers the planner adds 10^10 to the cost of any plan that
            // still scans a table (a handful of rows, no index to use), which is far over
            // jit_above_cost, so PostgreSQL would compile each such query to machine code:
            // 5–15 ms a statement, 100 ms the first time, for a scan of microseconds.
            var setup = "SET enable_seqscan = off; SET enable_bitmapscan = off; SET jit = off"
            if !slot.migrated {
                try PostgresMigrations.migrate(connection)
                // Once a process, in the same round trip: old commit markers.
                setup += "; " + PostgresCommitMarker.prune
            }
            try connection.execute(setup)
            slot.migrated = true
            slot.connection = connection
            slot.downSince = nil
            return connection
        } catch let error as PostgresError where error.isConnectionLost {
            slot.downSince = Self.nowMilliseconds()
            throw StoreUnavailable(retryAfterSeconds: 1, reason: "PostgreSQL cannot be reached")
        }
    }

    /// Sleeps 0.25–0.75 ms the first time, doubling per attempt up to 8–24 ms, with jitter, so
    /// processes that collided do not collide again in step.
    private static func pause(attempt: Int) {
        let ceiling = UInt32(500 << min(attempt - 1, 5))
        usleep(ceiling / 2 + UInt32.random(in: 0...ceiling))
    }

    static func nowMilliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}

/// A transaction committed without the body's value (cannot happen: the body returned it).
struct StoreFailureWithoutOutcome: Error {}

/// The store's one connection and what it knows about it.
struct ConnectionSlot {
    var connection: PostgresConnection?
    var migrated = false
    var downSince: Int64?
    var retries = 0
    /// This process's write transactions that carried a commit marker (the last one's number).
    var commits: Int64 = 0
}
