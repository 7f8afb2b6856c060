import LatchkeyCore
import LatchkeyRecords

/// One open transaction on the store's connection.
///
/// The first statement failure is remembered: after it PostgreSQL refuses every statement until
/// rollback, so the store decides from it (run again, connection lost, fail) even if the body swallowed
/// the error.
final class PostgresTransaction: StoreTransaction {
    let connection: PostgresConnection
    private(set) var failure: PostgresError?
    /// Statements (simple-query text, no parameters) the store sends in the round trip just
    /// before COMMIT: the outbox entry of the transaction's notifications.
    var beforeCommit: [String] = []

    init(connection: PostgresConnection) { self.connection = connection }

    private func run(_ sql: String, _ parameters: [PostgresValue]) throws -> PostgresRows {
        if let failure { throw failure }
        do {
            return try connection.query(sql, parameters)
        } catch let error as PostgresError {
            failure = error
            throw error
        }
    }

    func fetch<R: StoredRecord>(_ type: R.Type, id: String) throws -> R? {
        let rows = try run("SELECT * FROM \(quoted(R.table)) WHERE id = $1", [.text(id)])
        guard let row = rows.rows.first else { return nil }
        return try R(from: RecordDecoder(row: row, columns: rows.columns))
    }

    func fetchAll<R: StoredRecord>(_ type: R.Type, where filters: [StoreFilter], newestFirst: Bool, limit: Int?) throws -> [R] {
        var (sql, parameters) = Self.select("SELECT * FROM \(quoted(R.table))", filters)
        sql += newestFirst ? " ORDER BY \"_seq\" DESC" : " ORDER BY \"_seq\""
        // A parameter, not a literal: one prepared statement whatever limit a caller asks for.
        if let limit {
            parameters.append(.int(Int64(max(limit, 0))))
            sql += " LIMIT $\(parameters.count)"
        }
        let rows = try run(sql, parameters)
        return try rows.rows.map { try R(from: RecordDecoder(row: $0, columns: rows.columns)) }
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
        _ = try run(sql, values)
    }

    func delete<R: StoredRecord>(_ type: R.Type, id: String) throws {
        _ = try run("DELETE FROM \(quoted(R.table)) WHERE id = $1", [.text(id)])
    }

    func deleteAll<R: StoredRecord>(_ type: R.Type, where filters: [StoreFilter]) throws {
        let (sql, parameters) = Self.select("DELETE FROM \(quoted(R.table))", filters)
        _ = try run(sql, parameters)
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
