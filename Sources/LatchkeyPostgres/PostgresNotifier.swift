import Crypto
import Foundation
import LatchkeyStorage
import Synchronization

/// Notifications between the processes that share one PostgreSQL database, through a transactional outbox: a write transaction that causes
/// notifications inserts one row into `latchkey_outbox` (its sealed payloads, in order) before it commits, and sends `NOTIFY latchkey` (no payload)
/// as a wake-up that PostgreSQL delivers only if it commits.
///
/// Each listening process remembers the number of the last row it delivered and, on a wake-up, after
/// every (re)connect and at least once a second, reads the rows after it. So a change committed while a
/// process had no connection (a failover, a restart of the server) is announced after it reconnects,
/// each once, in commit order; and one that never committed is never announced.
///
/// Commit order. A BIGSERIAL alone is not commit-ordered: a transaction can draw 10, another
/// draw 11 and commit first, and a reader that saw 11 would never look at 10 again. So the row
/// is numbered under an exclusive transaction-level advisory lock taken just before COMMIT and
/// released only after the commit is visible: numbers are drawn in the order the transactions
/// become visible, and a reader that sees row n sees every earlier row that will ever exist.
/// (A number drawn by a transaction that then failed is a gap, never filled.) The lock covers
/// one statement round trip and the commit itself; the alternative, numbering by xid8 and
/// reading between two `pg_current_snapshot()`s, holds no lock but gives only batches, with
/// no order among the transactions inside one, and the contract asks for commit order. After a
/// failover the sequence goes on past every committed number (sequence WAL is logged ahead and
/// reaches the synchronous standby before the commit that used it).
///
/// The payloads are visible to every user of the database, and a notification may carry a
/// one-time code, so each is sealed with ChaChaPoly under a key derived (HKDF-SHA256) from the
/// `--key-file` key, which never enters the database. Each payload names the process that sent
/// it (a random id inside the sealed part), so a process drops its own: a subscriber hears each
/// notification once, its own requests' ones before their responses. A payload that does not
/// open under the key is dropped.
///
/// Pruning: each listening process records its cursor with a heartbeat in
/// `latchkey_outbox_reader`; rows that every live reader (heartbeat within `readerLifetime`) has
/// delivered and that are older than `pruneGrace` go, except the newest (where a new reader
/// starts). A process away for longer than `readerLifetime` may miss what was pruned meanwhile.
public final class PostgresNotifier: Sendable {
    static let channel = "latchkey"
    /// The outbox's numbering lock ("latchkeo" in ASCII; the writers' lock is "latchkew").
    static let outboxLockKey: Int64 = 0x6C61_7463_686B_656F
    /// Rows read per query; the rest on the next call.
    static let batchRows = 500
    static let reconnectPauseMilliseconds: Int64 = 1000
    /// A listening process reads the outbox at least this often, woken or not.
    static let readIntervalMilliseconds: Int64 = 1000
    static let heartbeatMilliseconds: Int64 = 2000
    static let pruneMilliseconds: Int64 = 10_000
    static let readerLifetime = "5 minutes"
    static let pruneGrace = "30 seconds"

    private let conninfo: String
    private let sealKey: SymmetricKey
    private let origin: [UInt8]
    private let readerId: String
    private let state = Mutex(State())

    /// The connections, and what this process has delivered.
    private struct State: ~Copyable {
        var housekeeper: PostgresConnection?
        var listener: PostgresConnection?
        var listening = false
        var migrated = false
        /// The last outbox row delivered (nil until the first connection: a process hears what
        /// committed after it started listening).
        var cursor: Int64?
        var lastRead: Int64 = 0
        var lastHeartbeat: Int64 = 0
        var lastPrune: Int64 = 0
        /// More rows were waiting after the last read.
        var behind = false
        /// This process has written outbox rows (only then does it prune without listening).
        var journaled = false
        /// When connecting last failed (monotonic ms): no new attempt for `reconnectPause`, so an
        /// unreachable server does not stall every request and every idle poll.
        var downSince: Int64?
    }

    public init(conninfo: String, key: [UInt8]) {
        self.conninfo = conninfo
        sealKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: key), info: Array("latchkey notify v1".utf8),
            outputByteCount: 32)
        let origin = (0..<16).map { _ in UInt8.random(in: 0...255) }
        self.origin = origin
        readerId = Hex.encode(origin)
        // The first pruning comes a while after start: a process that only answers `ping`
        // never connects for it.
        state.withLock { $0.lastPrune = PostgresStore.nowMilliseconds() }
    }

    /// Starts hearing the other processes (on the first subscription).
    public func start() {
        state.withLock { state in
            state.listening = true
            _ = try? listenerConnection(&state)
        }
    }

    /// Whether this process hears the others (then its loop polls `receive`).
    public var isListening: Bool { state.withLock { $0.listening } }

    /// Adds the outbox row of `notifications` to the transaction: sent in the round trip before
    /// COMMIT (see `PostgresStore`), under the numbering lock, with the wake-up.
    /// - Throws: when a payload cannot be sealed.
    public func journal(_ notifications: [(topic: String, message: [UInt8])], in transaction: StoreTransaction) throws {
        guard !notifications.isEmpty, let transaction = transaction as? PostgresTransaction else { return }
        let payloads = try notifications.map { try seal(topic: $0.topic, message: $0.message) }
        // Base64 ([A-Za-z0-9+/=]) needs no escaping in an array literal.
        let array = "{" + payloads.map { "\"\($0)\"" }.joined(separator: ",") + "}"
        state.withLock { $0.journaled = true }
        // One write: the lock (taken before the row's number is drawn), the row, the wake-up; it
        // travels with the transaction's other writes, in the round trip of COMMIT.
        transaction.beforeCommit.append(
            PostgresStatement(
                sql: "INSERT INTO \"latchkey_outbox\" (\"payloads\") SELECT $1 FROM pg_advisory_xact_lock(\(Self.outboxLockKey)) "
                    + "RETURNING pg_notify('\(Self.channel)', '')",
                parameters: [.text(array)], writes: "latchkey_outbox"))
    }

    /// What the other processes committed since the last call, in commit order.
    public func receive() -> [(topic: String, message: [UInt8])] {
        state.withLock { state in
            guard state.listening else { return [] }
            var fresh = false
            let connection: PostgresConnection
            if let open = state.listener, open.isUp {
                connection = open
            } else {
                guard let opened = try? listenerConnection(&state) else { return [] }
                connection = opened
                fresh = true
            }
            var delivered: [(topic: String, message: [UInt8])] = []
            do {
                let woken = try !connection.notifications().isEmpty
                let now = PostgresStore.nowMilliseconds()
                if fresh || woken || state.behind || now - state.lastRead >= Self.readIntervalMilliseconds {
                    state.lastRead = now
                    try read(connection, &state, into: &delivered)
                }
                if now - state.lastHeartbeat >= Self.heartbeatMilliseconds { try heartbeat(connection, &state) }
                if now - state.lastPrune >= Self.pruneMilliseconds {
                    state.lastPrune = now
                    try connection.execute(Self.prune)
                }
            } catch {
                // Gone: the next call connects again and reads on from the cursor.
                state.listener = nil
            }
            return delivered
        }
    }

    /// A process that writes outbox rows but does not listen prunes now and then, so the
    /// outbox stays small when no process listens.
    public func tidy() {
        state.withLock { state in
            let now = PostgresStore.nowMilliseconds()
            guard state.journaled, !state.listening, now - state.lastPrune >= Self.pruneMilliseconds * 3 else { return }
            state.lastPrune = now
            do {
                let connection = try state.housekeeper ?? connect(applicationName: "latchkey-notify", &state)
                state.housekeeper = connection
                try connection.execute(Self.prune)
            } catch {
                state.housekeeper = nil
            }
        }
    }

    /// Reads the rows after the cursor (up to `batchRows`), opening the payloads.
    private func read(_ connection: PostgresConnection, _ state: inout State, into delivered: inout [(topic: String, message: [UInt8])]) throws {
        guard let cursor = state.cursor else { return }
        let rows = try connection.query(
            """
            WITH batch AS (SELECT "seq", "payloads" FROM "latchkey_outbox" WHERE "seq" > $1 ORDER BY "seq" LIMIT \(Self.batchRows))
            SELECT b."seq", p.payload FROM batch b, unnest(b."payloads") WITH ORDINALITY AS p(payload, n) ORDER BY b."seq", p.n
            """, [.int(cursor)]
        ).rows
        var rowsRead = Set<Int64>()
        for row in rows {
            guard row.count == 2, case .int(let seq) = row[0] else { continue }
            rowsRead.insert(seq)
            if case .text(let payload) = row[1], let opened = open(payload) { delivered.append(opened) }
            state.cursor = max(state.cursor ?? seq, seq)
        }
        state.behind = rowsRead.count >= Self.batchRows
    }

    /// Records this process's cursor and that it is alive.
    private func heartbeat(_ connection: PostgresConnection, _ state: inout State) throws {
        guard let cursor = state.cursor else { return }
        try connection.query(
            """
            INSERT INTO "latchkey_outbox_reader" ("id", "seq", "heartbeat") VALUES ($1, $2, now())
            ON CONFLICT ("id") DO UPDATE SET "seq" = EXCLUDED."seq", "heartbeat" = now()
            """, [.text(readerId), .int(cursor)])
        state.lastHeartbeat = PostgresStore.nowMilliseconds()
    }

    /// Deletes the rows every live reader has delivered (older than the grace, never the
    /// newest), and the readers gone for longer than their lifetime.
    static let prune = """
        DELETE FROM "latchkey_outbox" WHERE "createdAt" < now() - interval '\(pruneGrace)'
          AND "seq" < (SELECT max("seq") FROM "latchkey_outbox")
          AND "seq" <= coalesce((SELECT min("seq") FROM "latchkey_outbox_reader" WHERE "heartbeat" > now() - interval '\(readerLifetime)'),
                                9223372036854775807);
        DELETE FROM "latchkey_outbox_reader" WHERE "heartbeat" < now() - interval '\(readerLifetime)';
        """

    /// The listening connection: LISTEN first (so no wake-up is missed), then, on the first
    /// connection of this process, the cursor at the newest row, registered at once.
    private func listenerConnection(_ state: inout State) throws -> PostgresConnection {
        if let listener = state.listener, listener.isUp { return listener }
        state.listener = nil
        let connection = try connect(applicationName: "latchkey-listen", &state)
        if !state.migrated {
            try PostgresMigrations.migrate(connection)
            state.migrated = true
        }
        try connection.execute("LISTEN \(Self.channel)")
        if state.cursor == nil {
            let newest = try connection.execute("SELECT coalesce(max(\"seq\"), 0) FROM \"latchkey_outbox\"").rows.first?.first
            guard case .int(let seq)? = newest else { throw PostgresError(code: .noAnswer, context: "outbox cursor") }
            state.cursor = seq
        }
        try heartbeat(connection, &state)
        state.listener = connection
        return connection
    }

    private func connect(applicationName: String, _ state: inout State) throws -> PostgresConnection {
        if let since = state.downSince, PostgresStore.nowMilliseconds() - since < Self.reconnectPauseMilliseconds {
            throw PostgresError(code: .noAnswer, context: "connect (paused after a failure)")
        }
        do {
            let connection = try PostgresConnection(conninfo: conninfo, applicationName: applicationName)
            state.downSince = nil
            return connection
        } catch {
            state.downSince = PostgresStore.nowMilliseconds()
            throw error
        }
    }

    /// origin (16) · topic length (1) · topic · message, sealed, in base64.
    private func seal(topic: String, message: [UInt8]) throws -> String {
        let topicBytes = Array(topic.utf8.prefix(255))
        let plain = origin + [UInt8(topicBytes.count)] + topicBytes + message
        let box = try ChaChaPoly.seal(plain, using: sealKey)
        return box.combined.base64EncodedString()
    }

    private func open(_ payload: String) -> (topic: String, message: [UInt8])? {
        guard let data = Data(base64Encoded: payload),
            let box = try? ChaChaPoly.SealedBox(combined: data),
            let plain = try? Array(ChaChaPoly.open(box, using: sealKey)),
            plain.count >= 17, Array(plain[0..<16]) != origin
        else { return nil }
        let topicLength = Int(plain[16])
        guard plain.count >= 17 + topicLength else { return nil }
        let topic = String(decoding: plain[17..<(17 + topicLength)], as: UTF8.self)
        return (topic, Array(plain[(17 + topicLength)...]))
    }
}
