import CLibpq

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Rows of one result: column names, then each row's values in column order.
struct PostgresRows {
    var columns: [String]
    var rows: [[PostgresValue]]
}

/// One statement with its parameters, for a pipeline.
struct PostgresStatement {
    var sql: String
    var parameters: [PostgresValue]
    /// The table a write changes (nil: not a write), so writes to different tables can travel
    /// as one statement (`combiningWrites`).
    var writes: String? = nil
}

/// What a pipeline waits for, in the order the server answers.
private enum PipelineEntry {
    case prepare(sql: String, name: String)
    case statement(Int)
}

/// One libpq connection, synchronous like the stdio loop.
///
/// Statements with parameters are prepared once per connection (named by their text) and run with
/// text-format parameters. Every answer is waited for `answerWaitMilliseconds` at most: a server that
/// stops answering on an open connection (hung, or cut off by the network without a word, so the
/// socket never closes) is a lost connection, never a call that waits for ever. Not thread-safe: its
/// owner serialises access.
final class PostgresConnection {
    /// How long one answer is waited for, unless `answerWaitMilliseconds` says otherwise.
    ///
    /// Longer than the connection's `lock_timeout` (`lockWaitMilliseconds`), so a lock wait the server ends is seen
    /// as the server's error. Past it the connection is given up as lost.
    static let defaultAnswerWaitMilliseconds: Int64 = 15_000
    /// Every lock wait of the connection's statements ends after this (the server answers `lockNotAvailable`), so a
    /// session left behind by an answer given up on never waits on to commit later.
    static let lockWaitMilliseconds: Int64 = 10_000
    /// While an answer has not come, libpq's input is read this often too: bytes that TLS has buffered are not seen by poll(2).
    static let pollSliceMilliseconds: Int64 = 100

    /// How long one answer is waited for (migrations, which may wait for another process's, wait longer).
    var answerWaitMilliseconds = defaultAnswerWaitMilliseconds

    private let pq: UnsafePointer<CLibpq_table>
    private let conn: OpaquePointer
    private var prepared: [String: String] = [:]
    /// Given up: an answer did not come in time (the server may still send it; nothing is read any more).
    private var abandoned = false
    /// The store's statement texts for this connection (see `PostgresStatementTexts`).
    let texts = PostgresStatementTexts()

    /// Connects with `conninfo` (a URI or key=value string); `connect_timeout` bounds the wait.
    /// - Throws: `PostgresError` with an empty SQLSTATE when the server cannot be reached.
    init(conninfo: String, connectTimeoutSeconds: Int = 3, applicationName: String = "latchkey") throws {
        guard let pq = libpq else { throw PostgresError(code: .noAnswer, context: "loading libpq 14 or later (is it installed?)") }
        self.pq = pq
        let keywords = ["dbname", "connect_timeout", "application_name"]
        let values = [conninfo, String(connectTimeoutSeconds), applicationName]
        let connection: OpaquePointer? = withCStrings(keywords) { keywordPointers in
            withCStrings(values) { valuePointers in
                CLibpq_connectdbParams(pq, keywordPointers, valuePointers, 1)
            }
        }
        guard let connection else { throw PostgresError(code: .noAnswer, context: "connect") }
        guard CLibpq_status(pq, connection) == CONNECTION_OK else {
            CLibpq_finish(pq, connection)
            throw PostgresError(code: .noAnswer, context: "connect")
        }
        conn = connection
        // bytea comes back as hex (a connection that cannot have it is refused: another form would
        // read as no value); integers as decimal text; no notices on stderr.
        try execute("SET bytea_output = 'hex'; SET lock_timeout = \(Self.lockWaitMilliseconds)")
        CLibpq_setNoticeProcessor(pq, conn, { _, _ in }, nil)
    }

    deinit { CLibpq_finish(pq, conn) }

    /// Whether libpq still believes the connection is up, and no answer on it was given up on.
    var isUp: Bool { !abandoned && CLibpq_status(pq, conn) == CONNECTION_OK }

    /// The socket, for poll(2) (-1 when closed).
    var socket: Int32 { CLibpq_socket(pq, conn) }

    /// Runs SQL without parameters (may hold several statements).
    @discardableResult
    func execute(_ sql: String) throws -> PostgresRows {
        guard !abandoned, CLibpq_sendQuery(pq, conn, sql) == 1 else { throw lost("statement") }
        return try results(context: "statement")
    }

    /// Runs one statement with parameters, prepared on first use on this connection.
    @discardableResult
    func query(_ sql: String, _ parameters: [PostgresValue]) throws -> PostgresRows {
        let name: String
        if let known = prepared[sql] {
            name = known
        } else {
            name = "lk\(prepared.count)"
            guard !abandoned, CLibpq_sendPrepare(pq, conn, name, sql, Int32(parameters.count), nil) == 1 else { throw lost("prepare") }
            _ = try results(context: "prepare")
            prepared[sql] = name
        }
        let texts = parameters.map(\.parameter)
        let sent = withOptionalCStrings(texts) { pointers in
            CLibpq_sendQueryPrepared(pq, conn, name, Int32(texts.count), pointers, nil, nil, 0)
        }
        guard !abandoned, sent == 1 else { throw lost("query") }
        return try results(context: "query")
    }

    /// Every result of the command sent, up to the end of them (as `PQexec` reads them): the last one's rows, or the first
    /// failure, thrown once all are read so the connection is ready for the next command.
    private func results(context: String) throws -> PostgresRows {
        var rows: PostgresRows?
        var firstFailure: PostgresError?
        while let result = try answer(context) {
            do {
                rows = try consume(result, context: context)
            } catch {
                firstFailure = firstFailure ?? (error as? PostgresError) ?? PostgresError(code: .unreadableValue, context: context)
            }
        }
        if let firstFailure { throw firstFailure }
        guard let rows else { throw lost(context) }
        return rows
    }

    /// libpq's next result once it has arrived (nil: no more for this command), waiting `answerWaitMilliseconds` at most.
    /// - Throws: a lost connection when the socket fails or no answer comes in time (the connection is then abandoned).
    private func answer(_ context: String) throws -> OpaquePointer? {
        let deadline = PostgresStore.nowMilliseconds() + answerWaitMilliseconds
        while CLibpq_isBusy(pq, conn) == 1 {
            let left = deadline - PostgresStore.nowMilliseconds()
            guard left > 0 else {
                abandon()
                throw PostgresError(code: .noAnswer, context: "\(context): no answer within \(answerWaitMilliseconds / 1000) s")
            }
            var descriptor = pollfd(fd: CLibpq_socket(pq, conn), events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(clamping: min(left, Self.pollSliceMilliseconds)))
            // A signal (SIGTERM finishes the call in hand) interrupts the wait, not the call.
            if ready < 0, errno == EINTR { continue }
            guard ready >= 0, CLibpq_consumeInput(pq, conn) == 1 else { throw lost(context) }
        }
        return CLibpq_getResult(pq, conn)
    }

    /// Gives the connection up: nothing is read or sent on it any more, and closing it resets it (SO_LINGER 0), so bytes not
    /// yet sent are dropped, never delivered later to commit what the store has been told did not; and `PQfinish` does not
    /// wait to send its goodbye to a server that reads nothing.
    private func abandon() {
        abandoned = true
        var reset = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(CLibpq_socket(pq, conn), SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
        _ = CLibpq_setnonblocking(pq, conn, 1)
    }

    /// Runs `statements` in one round trip (libpq's pipeline mode) and returns each one's rows.
    ///
    /// Statements are prepared on first use as `query` prepares them, the preparation travelling in
    /// the same round trip. After a failing statement the server skips the rest up to the
    /// pipeline's end; the first failure is thrown once every result has been read, so the
    /// connection is ready for the next call (a ROLLBACK, in a transaction).
    func pipeline(_ statements: [PostgresStatement]) throws -> [PostgresRows] {
        guard statements.count > 1 else {
            return try statements.map { try query($0.sql, $0.parameters) }
        }
        guard !abandoned, CLibpq_enterPipelineMode(pq, conn) == 1 else { throw PostgresError(code: .noAnswer, context: "pipeline") }
        var expected: [PipelineEntry] = []
        var preparing: [String: String] = [:]
        for (index, statement) in statements.enumerated() {
            var name = prepared[statement.sql] ?? preparing[statement.sql]
            if name == nil {
                let fresh = "lk\(prepared.count + preparing.count)"
                let count = Int32(statement.parameters.count)
                guard CLibpq_sendPrepare(pq, conn, fresh, statement.sql, count, nil) == 1 else { throw lost("pipeline") }
                preparing[statement.sql] = fresh
                expected.append(.prepare(sql: statement.sql, name: fresh))
                name = fresh
            }
            let texts = statement.parameters.map(\.parameter)
            let sent = withOptionalCStrings(texts) { pointers in
                CLibpq_sendQueryPrepared(pq, conn, name ?? "", Int32(texts.count), pointers, nil, nil, 0)
            }
            guard sent == 1 else { throw lost("pipeline") }
            expected.append(.statement(index))
        }
        guard CLibpq_pipelineSync(pq, conn) == 1 else { throw lost("pipeline") }
        var results = [PostgresRows](repeating: PostgresRows(columns: [], rows: []), count: statements.count)
        var firstFailure: PostgresError?
        for entry in expected {
            guard let result = try nextResult() else { throw lost("pipeline") }
            defer { CLibpq_clear(pq, result) }
            switch CLibpq_resultStatus(pq, result) {
            case PGRES_COMMAND_OK, PGRES_EMPTY_QUERY, PGRES_TUPLES_OK:
                switch entry {
                case .prepare(let sql, let name): prepared[sql] = name
                case .statement(let index):
                    do {
                        results[index] = try rows(of: result)
                    } catch {
                        firstFailure = firstFailure ?? (error as? PostgresError) ?? PostgresError(code: .unreadableValue, context: "pipeline")
                    }
                }
            case PGRES_PIPELINE_ABORTED:
                continue
            default:
                firstFailure = firstFailure ?? failure(of: result, context: "pipeline")
            }
        }
        // The end of the pipeline, then back to one statement a round trip.
        guard let sync = try nextResult() else { throw lost("pipeline") }
        let synced = CLibpq_resultStatus(pq, sync) == PGRES_PIPELINE_SYNC
        CLibpq_clear(pq, sync)
        guard synced, CLibpq_exitPipelineMode(pq, conn) == 1 else { throw lost("pipeline") }
        if let firstFailure { throw firstFailure }
        return results
    }

    /// The next result of a pipeline, over the NULL that ends each statement's results; nil when
    /// the connection broke.
    private func nextResult() throws -> OpaquePointer? {
        for _ in 0..<2 {
            if let result = try answer("pipeline") { return result }
            guard isUp else { return nil }
        }
        return nil
    }

    /// A pipeline that cannot go on: treated as a lost connection (the store drops it).
    private func lost(_ context: String) -> PostgresError {
        PostgresError(code: .noAnswer, context: context)
    }

    /// Reads what arrived on the socket and returns the notifications received (channel, payload).
    func notifications() throws -> [(channel: String, payload: String)] {
        guard CLibpq_consumeInput(pq, conn) == 1 else { throw PostgresError(code: .noAnswer, context: "listen") }
        var received: [(String, String)] = []
        while let notice = CLibpq_notifies(pq, conn) {
            received.append((String(cString: notice.pointee.relname), String(cString: notice.pointee.extra)))
            CLibpq_freemem(pq, notice)
        }
        return received
    }

    /// Turns a result into rows, or a `PostgresError` named by its SQLSTATE; always clears it.
    private func consume(_ result: OpaquePointer?, context: String) throws -> PostgresRows {
        guard let result else { throw PostgresError(code: .noAnswer, context: context) }
        defer { CLibpq_clear(pq, result) }
        switch CLibpq_resultStatus(pq, result) {
        case PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
            return PostgresRows(columns: [], rows: [])
        case PGRES_TUPLES_OK:
            return try rows(of: result)
        default:
            throw failure(of: result, context: context)
        }
    }

    /// The error a failed result names (a fatal error with no SQLSTATE, or on a dead connection,
    /// is a lost connection).
    private func failure(of result: OpaquePointer, context: String) -> PostgresError {
        let state = CLibpq_resultErrorField(pq, result, CLibpq_diag_sqlstate()).map { String(cString: $0) }
        guard isUp, let state else { return PostgresError(code: .noAnswer, context: context) }
        return PostgresError(code: PostgresError.Code(state), context: context)
    }

    /// - Throws: `unreadableValue` for a value in a form the store does not read (never a null in its place).
    private func rows(of result: OpaquePointer) throws -> PostgresRows {
        let fieldCount = CLibpq_nfields(pq, result)
        let rowCount = CLibpq_ntuples(pq, result)
        var columns: [String] = []
        var types: [UInt32] = []
        for field in 0..<fieldCount {
            columns.append(CLibpq_fname(pq, result, field).map { String(cString: $0) } ?? "")
            types.append(UInt32(CLibpq_ftype(pq, result, field)))
        }
        var rows: [[PostgresValue]] = []
        rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            var values: [PostgresValue] = []
            values.reserveCapacity(Int(fieldCount))
            for field in 0..<fieldCount {
                if CLibpq_getisnull(pq, result, row, field) == 1 {
                    values.append(.null)
                } else if let text = CLibpq_getvalue(pq, result, row, field) {
                    guard
                        let value = PostgresValue.field(text, length: Int(CLibpq_getlength(pq, result, row, field)), type: types[Int(field)])
                    else { throw PostgresError(code: .unreadableValue, context: "column \(columns[Int(field)])") }
                    values.append(value)
                } else {
                    values.append(.null)
                }
            }
            rows.append(values)
        }
        return PostgresRows(columns: columns, rows: rows)
    }
}

/// libpq's functions, loaded on first use (nil: libpq is not installed).
///
/// Loaded, not linked: latchkey on SQLite starts without loading libpq and the libraries it pulls in.
/// (Never written after its one-time initialisation, so shared across threads safely.)
nonisolated(unsafe) let libpq: UnsafePointer<CLibpq_table>? = CLibpq_load()

/// Calls `body` with C strings for `strings`, valid for the call only.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    withOptionalCStrings(strings.map { Optional($0) } + [nil], body)
}

private func withOptionalCStrings<R>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies: [UnsafeMutablePointer<CChar>?] = strings.map { $0.flatMap { strdup($0) } }
    defer { for copy in copies { free(copy) } }
    let pointers = copies.map { $0.map { UnsafePointer($0) } }
    return pointers.withUnsafeBufferPointer { buffer in
        // An empty buffer has no base address: hand libpq a pointer to a NULL instead.
        if let base = buffer.baseAddress { return body(base) }
        var none: UnsafePointer<CChar>? = nil
        return withUnsafePointer(to: &none) { body($0) }
    }
}
