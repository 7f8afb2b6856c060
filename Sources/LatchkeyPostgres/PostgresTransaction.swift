import LatchkeyCore
import LatchkeyRecords

/// One open transaction on the store's connection.
///
/// Statements that need no answer before the next one (BEGIN, the writes) wait in `queued` and go out
/// in one round trip with the next read or with COMMIT (libpq's pipeline mode), so a transaction costs
/// a round trip per read, plus COMMIT.
///
/// The first statement failure is remembered: after it PostgreSQL refuses every statement until
/// rollback, so the store decides from it (run again, connection lost, fail) even if the body swallowed
/// the error. A queued write's failure surfaces at the next read or at COMMIT, which decides the same way.
final class PostgresTransaction: StoreTransaction {
    let connection: PostgresConnection
    private(set) var failure: PostgresError?
    /// Statements sent with the next read or with COMMIT, in order.
    private var queued: [PostgresStatement] = []
    /// Where the queued statement whose rows the store wants (the transaction id) sits, and what it returned.
    private var idStatement: Int?
    private(set) var transactionId: Int64?
    /// Statements the store sends in the round trip of COMMIT: the outbox entry of the
    /// transaction's notifications.
    var beforeCommit: [PostgresStatement] = []

    init(connection: PostgresConnection) { self.connection = connection }

    /// Queues the transaction's opening statements: `begin`, then (for a write) the statement
    /// whose one row is the transaction id.
    func open(_ begin: String, transactionIdQuery: String?) {
        queued.append(PostgresStatement(sql: begin, parameters: []))
        if let transactionIdQuery {
            idStatement = queued.count
            queued.append(PostgresStatement(sql: transactionIdQuery, parameters: []))
        }
    }

    /// Whether the transaction id is still on its way (nothing has been sent yet).
    var awaitsTransactionId: Bool { idStatement != nil }

    /// Sends what is queued, and `reads` after it, in one round trip; the rows of each read.
    @discardableResult
    func send(_ reads: [PostgresStatement] = []) throws -> [PostgresRows] {
        if let failure { throw failure }
        let batch = queued + reads
        queued.removeAll()
        guard !batch.isEmpty else { return [] }
        do {
            let results = try connection.pipeline(batch)
            if let index = idStatement, case .int(let id)? = results[index].rows.first?.first { transactionId = id }
            idStatement = nil
            return Array(results.suffix(reads.count))
        } catch let error as PostgresError {
            failure = error
            throw error
        }
    }

    /// Sends what is queued, the `beforeCommit` statements and COMMIT in one round trip.
    func commit() throws {
        queued += beforeCommit
        beforeCommit = []
        try send([PostgresStatement(sql: "COMMIT", parameters: [])])
    }

    private func run(_ sql: String, _ parameters: [PostgresValue]) throws -> PostgresRows {
        try send([PostgresStatement(sql: sql, parameters: parameters)])[0]
    }

    private func queue(_ sql: String, _ parameters: [PostgresValue]) throws {
        if let failure { throw failure }
        queued.append(PostgresStatement(sql: sql, parameters: parameters))
    }

    func fetch<R: StoredRecord>(_ type: R.Type, id: String) throws -> R? {
        try Self.records(R.self, try run("SELECT * FROM \(quoted(R.table)) WHERE id = $1", [.text(id)])).first
    }

    func fetchAll<R: StoredRecord>(_ type: R.Type, where filters: [StoreFilter], newestFirst: Bool, limit: Int?) throws -> [R] {
        let statement = Self.selectAll(R.self, filters, newestFirst: newestFirst, limit: limit)
        return try Self.records(R.self, try run(statement.sql, statement.parameters))
    }

    func fetch<R: StoredRecord, S: StoredRecord>(
        _ type: R.Type, id: String, alongWith related: S.Type, where filters: [StoreFilter]
    ) throws
        -> (R?, [S])
    {
        let byId = PostgresStatement(sql: "SELECT * FROM \(quoted(R.table)) WHERE id = $1", parameters: [.text(id)])
        let results = try send([byId, Self.selectAll(S.self, filters, newestFirst: false, limit: nil)])
        return (try Self.records(R.self, results[0]).first, try Self.records(S.self, results[1]))
    }

    private static func selectAll<R: StoredRecord>(_ type: R.Type, _ filters: [StoreFilter], newestFirst: Bool, limit: Int?) -> PostgresStatement {
        var (sql, parameters) = select("SELECT * FROM \(quoted(R.table))", filters)
        sql += newestFirst ? " ORDER BY \"_seq\" DESC" : " ORDER BY \"_seq\""
        // A parameter, not a literal: one prepared statement whatever limit a caller asks for.
        if let limit {
            parameters.append(.int(Int64(max(limit, 0))))
            sql += " LIMIT $\(parameters.count)"
        }
        return PostgresStatement(sql: sql, parameters: parameters)
    }

    private static func records<R: StoredRecord>(_ type: R.Type, _ rows: PostgresRows) throws -> [R] {
        try rows.rows.map { try R(from: RecordDecoder(row: $0, columns: rows.columns)) }
    }

    func count<R: StoredRecord>(_ type: R.Type, where filters: [StoreFilter]) throws -> Int {
        let (sql, parameters) = Self.select("SELECT COUNT(*) FROM \(quoted(R.table))", filters)
        guard case .int(let count)? = try run(sql, parameters).rows.first?.first else { return 0 }
        return Int(count)
    }

    /// `INSERT … ON CONFLICT (id) DO UPDATE`: the row keeps its `_seq` (insertion order).
    func save<R: StoredRecord>(_ record: R) throws {
        let (columns, values) = try PostgresRecordEncoder.columns(of: record)
        let names = columns.map(quoted)
        let placeholders = (1...max(names.count, 1)).prefix(names.count).map { "$\($0)" }
        let updates = names.filter { $0 != "\"id\"" }.map { "\($0) = EXCLUDED.\($0)" }
        var sql =
            "INSERT INTO \(quoted(R.table)) (\(names.joined(separator: ", "))) VALUES (\(placeholders.joined(separator: ", "))) ON CONFLICT (id) DO "
        sql += updates.isEmpty ? "NOTHING" : "UPDATE SET \(updates.joined(separator: ", "))"
        try queue(sql, values)
    }

    func delete<R: StoredRecord>(_ type: R.Type, id: String) throws {
        try queue("DELETE FROM \(quoted(R.table)) WHERE id = $1", [.text(id)])
    }

    func deleteAll<R: StoredRecord>(_ type: R.Type, where filters: [StoreFilter]) throws {
        let (sql, parameters) = Self.select("DELETE FROM \(quoted(R.table))", filters)
        try queue(sql, parameters)
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
            }
            return "\(column) \(filter.comparison.rawValue) $\(values.count)"
        }
        return (head + " WHERE " + clauses.joined(separator: " AND "), values)
    }
}

/// A quoted identifier (table and column names are literal strings of the records).
func quoted(_ identifier: String) -> String {
    var out = "\""
    for character in identifier {
        out.append(character)
        if character == "\"" { out.append(character) }
    }
    return out + "\""
}
