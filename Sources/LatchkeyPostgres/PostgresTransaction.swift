import LatchkeyCore
import LatchkeyRecords

/// One open transaction on the store's connection.
///
/// Statements that need no answer before the next one (BEGIN, the writes) wait in `queued` and go out
/// in one round trip with the next read or with COMMIT (libpq's pipeline mode), so a transaction costs
/// a round trip per read, plus COMMIT. Reads the body announces (`readAhead`) go out with its next read
/// too, and their rows answer the body's reads of them until it writes.
///
/// The first statement failure is remembered: after it PostgreSQL refuses every statement until
/// rollback, so the store decides from it (run again, connection lost, fail) even if the body swallowed
/// the error. A queued write's failure surfaces at the next read or at COMMIT, which decides the same way.
final class PostgresTransaction: StoreTransaction {
    let connection: PostgresConnection
    private(set) var failure: PostgresError?
    /// Statements sent with the next read or with COMMIT, in order.
    private var queued: [PostgresStatement] = []
    /// Whether the body has queued a write.
    private var wrote = false
    /// Reads announced and not sent yet: they follow `queued` in the next round trip of a read.
    private var announced: [Announced] = []
    /// What announced reads answered, until the body writes (its writes may change them).
    private var answered: [AnsweredRead: PostgresRows] = [:]
    /// What this attempt cost, for the store's trace log: time inside the store's calls (round trips,
    /// and turning records into statements and rows into records), round trips, statements.
    private(set) var cost = PostgresCost()
    /// How deep in the store's own calls the transaction is (only the outermost is timed).
    private var depth = 0
    /// Rows this transaction has read or written and not deleted: there in its snapshot.
    private var seen: Set<Row> = []
    /// Statements the store sends in the round trip of COMMIT: the outbox entry of the
    /// transaction's notifications.
    var beforeCommit: [PostgresStatement] = []

    /// A row by table and id.
    private struct Row: Hashable {
        var table: String
        var id: String
    }

    /// What an announced read answers: a row by id, or a statement as it is.
    private enum AnsweredRead: Hashable {
        case row(table: String, id: String)
        case statement(sql: String, parameters: [PostgresValue])

        init(_ statement: PostgresStatement) { self = .statement(sql: statement.sql, parameters: statement.parameters) }
    }

    /// A read announced, with its statement and where its answer is kept, both worked out once. (A
    /// referenced read's answer is kept under its statement, and its row by the id it turns out to
    /// have.)
    private struct Announced {
        var read: StoreRead
        var statement: PostgresStatement
        var key: AnsweredRead
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
    }

    /// Whether COMMIT would write anything: a write the body queued, or an outbox entry.
    var writes: Bool { wrote || !beforeCommit.isEmpty }

    func readAhead(_ reads: [StoreRead]) {
        guard failure == nil else { return }
        for read in reads {
            let statement = statement(read)
            let key: AnsweredRead =
                switch read.shape {
                case .row(let id): .row(table: read.table, id: id)
                case .rows, .referenced: AnsweredRead(statement)
                }
            // Announced twice (foreseen, then announced by the body itself): asked once.
            guard answered[key] == nil, !announced.contains(where: { $0.key == key }) else { continue }
            announced.append(Announced(read: read, statement: statement, key: key))
        }
    }

    /// Forgets the reads announced and not sent (the body returned: nobody will make them).
    func discardReadAhead() { announced.removeAll() }

    /// Sends what is queued, the announced reads, and `reads` after them, in one round trip; the rows of each of `reads`.
    @discardableResult
    func send(_ reads: [PostgresStatement] = []) throws -> [PostgresRows] {
        if let failure { throw failure }
        let ahead = announced
        let batch = PostgresStatement.combiningWrites(queued, texts: texts) + ahead.map(\.statement) + reads
        queued.removeAll()
        announced.removeAll()
        guard !batch.isEmpty else { return [] }
        cost.roundTrips += 1
        cost.statements += batch.count
        do {
            let sent = PostgresCost.now()
            defer { cost.waitNanoseconds += PostgresCost.now() - sent }
            let results = try connection.pipeline(batch)
            let aheadResults = results.dropLast(reads.count).suffix(ahead.count)
            for (entry, rows) in zip(ahead, aheadResults) { remember(entry, rows) }
            return Array(results.suffix(reads.count))
        } catch let error as PostgresError {
            failure = error
            throw error
        }
    }

    /// Sends what is queued, the `beforeCommit` statements, the commit marker (if any) and COMMIT
    /// in one round trip.
    func commit(marking marker: PostgresCommitMarker?) throws {
        discardReadAhead()
        queued += beforeCommit
        beforeCommit = []
        if let marker { queued.append(marker.statement) }
        try send([PostgresStatement(sql: "COMMIT", parameters: [])])
    }

    private func run(_ sql: String, _ parameters: [PostgresValue]) throws -> PostgresRows {
        try send([PostgresStatement(sql: sql, parameters: parameters)])[0]
    }

    /// The rows of a read: from an announced read's answer, or in a round trip of its own (which
    /// takes the announced reads along).
    private func rows(_ key: AnsweredRead, _ statement: PostgresStatement) throws -> PostgresRows {
        if let rows = answered[key] { return rows }
        if announced.contains(where: { $0.key == key }) {
            try send()
            if let rows = answered[key] { return rows }
        }
        return try send([statement])[0]
    }

    /// Queues a write to `table`.
    private func queue(_ sql: String, _ parameters: [PostgresValue], writing table: String) throws {
        if let failure { throw failure }
        // What was read ahead may no longer be what a read would answer; reads announced but not
        // sent yet go out after this write and see it.
        answered.removeAll()
        wrote = true
        queued.append(PostgresStatement(sql: sql, parameters: parameters, writes: table))
    }

    /// The statement an announced read runs.
    private func statement(_ read: StoreRead) -> PostgresStatement {
        switch read.shape {
        case .row(let id): return byId(read.table, id)
        case .rows(let filters, let newestFirst, let limit): return Self.selectAll(read.table, filters, newestFirst: newestFirst, limit: limit)
        case .referenced(let ownerTable, let column, let ownerId):
            // The referenced id comes first (null when the owner's column is), then the row, if any.
            let reference = "o.\(quoted(column))"
            return PostgresStatement(
                sql: "SELECT \(reference) AS \"_ref\", t.* FROM \(quoted(ownerTable)) o LEFT JOIN \(quoted(read.table)) t "
                    + "ON t.id = \(reference) WHERE o.id = $1",
                parameters: [.text(ownerId)])
        }
    }

    private func remember(_ entry: Announced, _ rows: PostgresRows) {
        answered[entry.key] = rows
        guard case .referenced = entry.read.shape else { return }
        // A referenced read: the row by the id the owner names (none when the owner names none).
        guard let first = rows.rows.first, case .text(let id)? = first.first else { return }
        let columns = Array(rows.columns.dropFirst())
        let found = columns.firstIndex(of: "id").map { first[$0 + 1] != .null } ?? false
        answered[.row(table: entry.read.table, id: id)] = PostgresRows(columns: columns, rows: found ? [Array(first.dropFirst())] : [])
    }

    private func byId(_ table: String, _ id: String) -> PostgresStatement {
        PostgresStatement(sql: texts.select(byIdIn: table), parameters: [.text(id)])
    }

    func fetch<R: StoredRecord>(_ type: R.Type, id: String) throws -> R? {
        try timed {
            try records(R.self, try rows(.row(table: R.table, id: id), byId(R.table, id))).first
        }
    }

    func fetchAll<R: StoredRecord>(_ type: R.Type, where filters: [StoreFilter], newestFirst: Bool, limit: Int?) throws -> [R] {
        try timed {
            let statement = Self.selectAll(R.table, filters, newestFirst: newestFirst, limit: limit)
            return try records(R.self, try rows(AnsweredRead(statement), statement))
        }
    }

    func fetch<R: StoredRecord, S: StoredRecord>(
        _ type: R.Type, id: String, alongWith related: S.Type, where filters: [StoreFilter]
    ) throws
        -> (R?, [S])
    {
        try timed {
            let results = try send([byId(R.table, id), Self.selectAll(S.table, filters, newestFirst: false, limit: nil)])
            return (try records(R.self, results[0]).first, try records(S.self, results[1]))
        }
    }

    private static func selectAll(_ table: String, _ filters: [StoreFilter], newestFirst: Bool, limit: Int?) -> PostgresStatement {
        var (sql, parameters) = select("SELECT * FROM \(quoted(table))", filters)
        sql += newestFirst ? " ORDER BY \"_seq\" DESC" : " ORDER BY \"_seq\""
        // A parameter, not a literal: one prepared statement whatever limit a caller asks for.
        if let limit {
            parameters.append(.int(Int64(max(limit, 0))))
            sql += " LIMIT $\(parameters.count)"
        }
        return PostgresStatement(sql: sql, parameters: parameters)
    }

    /// The records of `rows`, each remembered as a row this transaction has seen (see `save`).
    private func records<R: StoredRecord>(_ type: R.Type, _ rows: PostgresRows) throws -> [R] {
        let records = try rows.rows.map { try R(from: RecordDecoder(row: $0, columns: rows.columns)) }
        for record in records { seen.insert(Row(table: R.table, id: record.id)) }
        return records
    }

    func count<R: StoredRecord>(_ type: R.Type, where filters: [StoreFilter]) throws -> Int {
        try timed {
            let (sql, parameters) = Self.select("SELECT COUNT(*) FROM \(quoted(R.table))", filters)
            guard case .int(let count)? = try run(sql, parameters).rows.first?.first else { return 0 }
            return Int(count)
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
            let (columns, values) = try PostgresRecordEncoder.columns(of: record)
            let known = seen.contains(Row(table: R.table, id: record.id)) && columns.count > 1 && columns.contains("id")
            let sql = known ? texts.update(R.table, columns: columns) : texts.upsert(into: R.table, columns: columns)
            try queue(sql, values, writing: R.table)
            seen.insert(Row(table: R.table, id: record.id))
        }
    }

    /// Inserted in the round trip of COMMIT, its number drawn from `<table>_number` under the
    /// outbox's numbering lock (see `PostgresNotifier`): numbers are drawn in the order the
    /// transactions become visible.
    func insertNumbered<R: NumberedRecord>(_ record: R) throws {
        try timed {
            if let failure { throw failure }
            let (columns, values) = try PostgresRecordEncoder.columns(of: record)
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
            try queue(texts.delete(byIdIn: R.table), [.text(id)], writing: R.table)
            seen.remove(Row(table: R.table, id: id))
        }
    }

    func deleteAll<R: StoredRecord>(_ type: R.Type, where filters: [StoreFilter]) throws {
        try timed {
            let (sql, parameters) = Self.select("DELETE FROM \(quoted(R.table))", filters)
            try queue(sql, parameters, writing: R.table)
            seen = seen.filter { $0.table != R.table }
        }
    }

    private static func select(_ head: String, _ filters: [StoreFilter]) -> (String, [PostgresValue]) {
        guard !filters.isEmpty else { return (head, []) }
        var values: [PostgresValue] = []
        let clauses = filters.map { filter -> String in
            let column = quoted(filter.column)
            switch filter.value {
            case .null:
                return filter.comparison == .notEqual ? "\(column) IS NOT NULL" : "\(column) IS NULL"
            case .text(let text): values.append(.text(text))
            case .int(let number): values.append(.int(number))
            case .bool(let flag): values.append(.bool(flag))
            case .bytes(let bytes): values.append(.bytes(bytes))
            }
            return "\(column) \(filter.comparison.rawValue) $\(values.count)"
        }
        return (head + " WHERE " + clauses.joined(separator: " AND "), values)
    }
}

/// A quoted identifier (table and column names are literal strings of the records).
func quoted(_ identifier: String) -> String {
    // The records' names hold no quote: no need to walk them (this runs for every column of a query).
    if !identifier.utf8.contains(UInt8(ascii: "\"")) { return "\"" + identifier + "\"" }
    var out = "\""
    for character in identifier {
        out.append(character)
        if character == "\"" { out.append(character) }
    }
    return out + "\""
}
