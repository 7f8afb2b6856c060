import LatchkeyStorage

/// One open transaction on the store's connection.
///
/// Statements that need no answer before the next one (BEGIN, the writes) wait in `queued` and go out
/// in one round trip with the next read or with COMMIT (libpq's pipeline mode), so a transaction costs
/// a round trip per read, plus COMMIT. The reads the body states at its start (`willRead`) go out
/// together with its first read, and what they returned answers the body's reads of them
/// (`PostgresReadSet`).
///
/// The first statement failure is remembered: after it PostgreSQL refuses every statement until
/// rollback, so the store decides from it (run again, connection lost, fail) even if the body swallowed
/// the error. A queued write's failure surfaces at the next read or at COMMIT, which decides the same way.
final class PostgresTransaction: StoreTransaction {
    let connection: PostgresConnection
    private(set) var failure: PostgresError?
    /// Statements sent with the next read or with COMMIT, in order.
    private var queued: [PostgresStatement] = []
    /// How many of `queued`'s first statements open the transaction (not sent yet): the commit marker goes right after them.
    private var openingQueued = 0
    /// Whether the body has queued a write.
    private var wrote = false
    /// The reads stated and not sent yet (they follow `queued` in the next round trip of a read),
    /// and what the transaction knows of its reads' answers.
    private var reads = PostgresReadSet()
    /// What this attempt cost, for the store's trace log: time inside the store's calls (round trips,
    /// and turning records into statements and rows into records), round trips, statements, rows answered.
    private(set) var cost = PostgresCost()
    /// How deep in the store's own calls the transaction is (only the outermost is timed).
    private var depth = 0
    /// Rows this transaction has read or written and not deleted: there in its snapshot.
    private var seen: Set<Row> = []
    /// Statements the store sends in the round trip of COMMIT: the outbox entry of the
    /// transaction's notifications.
    var beforeCommit: [PostgresStatement] = []
    /// Reads sent with COMMIT (`readAtCommit`), each with what decodes its rows (once committed).
    private var atCommit: [(statement: PostgresStatement, decode: (PostgresRows) throws -> Void)] = []
    /// Whether `noneMatch` may answer "none" and check it with COMMIT (false on an attempt that runs
    /// again because such a check failed: it asks first).
    var defersChecks = true

    /// A row by table and id.
    private struct Row: Hashable {
        var table: String
        var id: String
    }

    /// The connection's statement texts, built once.
    private var texts: PostgresStatementTexts { connection.texts }

    init(connection: PostgresConnection) { self.connection = connection }

    /// Runs one of the store's calls, its time counted in `cost` (once, however deep the calls nest).
    func timed<T>(_ body: () throws -> T) rethrows -> T {
        guard depth == 0 else { return try body() }
        depth += 1
        let started = PostgresCost.now()
        defer {
            cost.nanoseconds += PostgresCost.now() - started
            depth -= 1
        }
        return try body()
    }

    /// Queues the transaction's opening statements: `begin`, then `first` (a lock to take).
    func open(_ begin: String, first: String?) {
        queued.append(PostgresStatement(sql: begin, parameters: []))
        if let first { queued.append(PostgresStatement(sql: first, parameters: [])) }
        openingQueued = queued.count
    }

    /// Whether COMMIT would write anything: a write the body queued, or an outbox entry.
    var writes: Bool { wrote || !beforeCommit.isEmpty }

    func willRead(_ reads: @autoclosure () -> [StoreRead]) {
        guard failure == nil else { return }
        self.reads.state(reads(), texts: texts)
    }

    /// Sends what is queued, the stated reads, and `reads` after them, in one round trip; the rows of each of `reads`.
    @discardableResult
    func send(_ reads: [PostgresStatement] = []) throws -> [PostgresRows] {
        if let failure { throw failure }
        let ahead = self.reads.takeStated()
        let batch = PostgresStatement.combiningWrites(queued, texts: texts) + ahead.map(\.statement) + reads
        queued.removeAll()
        openingQueued = 0
        guard !batch.isEmpty else { return [] }
        cost.roundTrips += 1
        cost.statements += batch.count
        do {
            let sent = PostgresCost.now()
            defer { cost.waitNanoseconds += PostgresCost.now() - sent }
            let results = try connection.pipeline(batch)
            cost.rows += results.reduce(0) { $0 + $1.rows.count }
            let aheadResults = results.dropLast(reads.count).suffix(ahead.count)
            for (entry, rows) in zip(ahead, aheadResults) { self.reads.remember(entry, rows, texts: texts) }
            return Array(results.suffix(reads.count))
        } catch let error as PostgresError {
            failure = error
            throw error
        }
    }

    /// Sends the commit marker (if any), what is queued, the `beforeCommit` statements and COMMIT in one round trip.
    ///
    /// The marker goes first, right after the statements that open the transaction if they are still queued (the lock a writer
    /// takes before its snapshot must stay first): it takes this process's row before anything after it in the batch can wait on
    /// another transaction (a row lock, the outbox's advisory lock held by a COMMIT waiting for its standby), so a lookup after a
    /// lost connection waits for this transaction to end rather than finding the row free while it may still commit.
    func commit(marking marker: PostgresCommitMarker?) throws {
        reads.discardStated()
        if let marker { queued.insert(marker.statement, at: openingQueued) }
        queued += beforeCommit
        beforeCommit = []
        let reads = atCommit
        atCommit = []
        let results = try send(reads.map(\.statement) + [PostgresStatement(sql: "COMMIT", parameters: [])])
        // Committed: rows that will not decode (a damaged row) change nothing of it, and are thrown away as the others are.
        for (read, rows) in zip(reads, results) { try? read.decode(rows) }
    }

    private func run(_ sql: String, _ parameters: [PostgresValue]) throws -> PostgresRows {
        try send([PostgresStatement(sql: sql, parameters: parameters)])[0]
    }

    /// The rows of a read: from a stated read's answer, or in a round trip of its own (which
    /// takes the stated reads along).
    private func rows(_ key: PostgresReadSet.Key, _ statement: PostgresStatement) throws -> PostgresRows {
        if let rows = reads.answer(key) { return rows }
        if reads.isStated(key) {
            try send()
            if let rows = reads.answer(key) { return rows }
        }
        return try send([statement])[0]
    }

    /// Queues a write to `table` (to its row `id`, or to rows a filter picks).
    private func queue(_ sql: String, _ parameters: [PostgresValue], writing table: String, row id: String?) throws {
        if let failure { throw failure }
        // What was read of the table may no longer be what a read would answer; reads stated but
        // not sent yet go out after this write and see it.
        reads.forget(table, row: id)
        wrote = true
        queued.append(PostgresStatement(sql: sql, parameters: parameters, writes: table))
    }

    private func byId<R: StoredRecord>(_ type: R.Type, _ id: String) -> PostgresStatement {
        PostgresStatement(sql: texts.select(byIdIn: R.table, columns: R.columns), parameters: [.text(id)])
    }

    func fetch<R: StoredRecord>(_ type: R.Type, id: String) throws -> R? {
        try timed {
            try records(R.self, try rows(.row(table: R.table, id: id), byId(R.self, id))).first
        }
    }

    func fetchAll<R: StoredRecord>(_ type: R.Type, where filters: [StoreFilter], newestFirst: Bool, limit: Int?) throws -> [R] {
        try timed {
            let statement = select(StoreQuery<R>(where: filters, newestFirst: newestFirst, limit: limit))
            return try records(R.self, try rows(PostgresReadSet.Key(statement), statement))
        }
    }

    /// The SELECT of `R`'s columns that `query` makes (the store selects `R.columns`, in their order).
    private func select<R: StoredRecord>(_ query: StoreQuery<R>) -> PostgresStatement {
        PostgresStatement.selectAll(
            texts.select(from: R.table, columns: R.columns), query.filters, newestFirst: query.newestFirst, limit: query.limit)
    }

    /// The records of `rows`, each remembered as a row this transaction has seen (see `save`).
    /// (Each row's values come in the record's column order: the store selects `R.columns`.)
    private func records<R: StoredRecord>(_ type: R.Type, _ rows: PostgresRows) throws -> [R] {
        let records = try rows.rows.map { values in
            var row = RowReader(values)
            return try R(row: &row)
        }
        for record in records { seen.insert(Row(table: R.table, id: record.id)) }
        return records
    }

    /// "None" from what a stated read answered, or asked now when checks do not wait; else "none",
    /// checked in the queue where the call stands (after the writes before it, before those after),
    /// so with COMMIT at the latest: `latchkey_require_none` fails the transaction with LK001 when a
    /// row is there (migration v10).
    func noneMatch<R: StoredRecord>(_ query: StoreQuery<R>) throws -> Bool {
        try timed {
            let statement = select(query)
            let key = PostgresReadSet.Key(statement)
            if let rows = reads.answer(key) { return rows.rows.isEmpty }
            guard defersChecks else { return try rows(key, statement).rows.isEmpty }
            if let failure { throw failure }
            queued.append(PostgresStatement(sql: "SELECT latchkey_require_none(EXISTS (\(statement.sql)))", parameters: statement.parameters))
            return true
        }
    }

    /// Queued to go with COMMIT, after every write; its rows are decoded once it has committed.
    func readAtCommit<R: StoredRecord>(_ query: StoreQuery<R>) throws {
        if let failure { throw failure }
        atCommit.append((select(query), { [unowned self] rows in _ = try self.records(R.self, rows) }))
    }

    func count<R: StoredRecord>(_ type: R.Type, where filters: [StoreFilter]) throws -> Int {
        Int(try aggregate(R.self, "COUNT(*)", filters) ?? 0)
    }

    func minimum<R: StoredRecord>(_ type: R.Type, _ column: String, where filters: [StoreFilter]) throws -> Int64? {
        try aggregate(R.self, "MIN(\(quoted(column)))", filters)
    }

    /// The one integer `SELECT expression FROM table WHERE …` answers over the rows matching `filters` (nil: NULL).
    private func aggregate<R: StoredRecord>(_ type: R.Type, _ expression: String, _ filters: [StoreFilter]) throws -> Int64? {
        try timed {
            var parameters: [PostgresValue] = []
            let sql = PostgresStatement.select("SELECT \(expression) FROM \(quoted(R.table))", filters, &parameters)
            guard case .int(let value)? = try run(sql, parameters).rows.first?.first else { return nil }
            return value
        }
    }

    /// `UPDATE` of a row this transaction has read, else `INSERT … ON CONFLICT (id) DO UPDATE`;
    /// either way the row keeps its `_seq` (insertion order).
    ///
    /// A row read is there in the transaction's snapshot: if another transaction changed or removed
    /// it since, the UPDATE fails as a serialization failure and the body runs again, as the upsert
    /// would. The UPDATE spares PostgreSQL the attempted insert (and the `_seq` it draws).
    func save<R: StoredRecord>(_ record: R) throws {
        try timed {
            let columns = R.columns
            let values = record.rowValues
            let known = seen.contains(Row(table: R.table, id: record.id)) && columns.count > 1 && columns.contains("id")
            let sql = known ? texts.update(R.table, columns: columns) : texts.upsert(into: R.table, columns: columns)
            try queue(sql, values, writing: R.table, row: record.id)
            seen.insert(Row(table: R.table, id: record.id))
            // The row is what the body wrote: a read of it by id needs no round trip.
            reads.know(R.table, id: record.id, PostgresRows(columns: columns, rows: [values]))
        }
    }

    /// Inserted in the round trip of COMMIT, its number drawn from `<table>_number` under the
    /// outbox's numbering lock (see `PostgresNotifier`): numbers are drawn in the order the
    /// transactions become visible.
    func insertNumbered<R: NumberedRecord>(_ record: R) throws {
        try timed {
            if let failure { throw failure }
            let columns = R.columns
            let values = record.rowValues
            var selected: [String] = []
            var parameters: [PostgresValue] = []
            for (column, value) in zip(columns, values) {
                if column == "seq" {
                    selected.append("nextval('\(R.table)_number')")
                } else {
                    parameters.append(value)
                    selected.append("$\(parameters.count)")
                }
            }
            beforeCommit.append(
                PostgresStatement(
                    sql: "INSERT INTO \(quoted(R.table)) (\(columns.map(quoted).joined(separator: ", "))) SELECT \(selected.joined(separator: ", ")) "
                        + "FROM pg_advisory_xact_lock(\(PostgresNotifier.outboxLockKey))",
                    parameters: parameters, writes: R.table))
        }
    }

    func delete<R: StoredRecord>(_ type: R.Type, id: String) throws {
        try timed {
            try queue(texts.delete(byIdIn: R.table), [.text(id)], writing: R.table, row: id)
            seen.remove(Row(table: R.table, id: id))
            reads.know(R.table, id: id, PostgresRows(columns: ["id"], rows: []))
        }
    }

    func deleteAll<R: StoredRecord>(_ type: R.Type, where filters: [StoreFilter]) throws {
        try timed {
            var parameters: [PostgresValue] = []
            let sql = PostgresStatement.select("DELETE FROM \(quoted(R.table))", filters, &parameters)
            try queue(sql, parameters, writing: R.table, row: nil)
            seen = seen.filter { $0.table != R.table }
        }
    }
}
