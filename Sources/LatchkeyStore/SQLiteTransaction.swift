import Foundation
import GRDB
import LatchkeyCore

/// One open transaction.
///
/// Every statement is prepared once per connection and kept per record type and shape
/// (`StatementCache`); a record reads its row and writes its values itself (`StoredRecord`), the
/// store only turns SQLite's values into `StoreValue`s and back.
struct Transaction: StoreTransaction {
    let db: Database
    let statements: StatementCache

    func fetch<R: StoredRecord>(_ type: R.Type, id: String) throws -> R? {
        let statement = try statements.statement(R.self, .fetch, in: db) {
            "SELECT \(Self.columns(R.self)) FROM \(R.table.quotedDatabaseIdentifier) WHERE id = ?"
        }
        return try records(R.self, statement, [id]).first
    }

    func fetchAll<R: StoredRecord>(_ type: R.Type, where filters: [StoreFilter], newestFirst: Bool, limit: Int?) throws -> [R] {
        let shape = StatementCache.Shape(filters, newestFirst: newestFirst, limited: limit != nil)
        let statement = try statements.statement(R.self, .select(shape), in: db) {
            var sql = Self.select("SELECT \(Self.columns(R.self)) FROM \(R.table.quotedDatabaseIdentifier)", filters)
            sql += newestFirst ? " ORDER BY rowid DESC" : " ORDER BY rowid"
            return sql + (limit == nil ? "" : " LIMIT ?")
        }
        return try records(R.self, statement, Self.arguments(filters) + (limit.map { [max($0, 0)] } ?? []))
    }

    func count<R: StoredRecord>(_ type: R.Type, where filters: [StoreFilter]) throws -> Int {
        let statement = try statements.statement(R.self, .count(StatementCache.Shape(filters)), in: db) {
            Self.select("SELECT COUNT(*) FROM \(R.table.quotedDatabaseIdentifier)", filters)
        }
        return try Int.fetchOne(statement, arguments: StatementArguments(Self.arguments(filters))) ?? 0
    }

    /// `INSERT … ON CONFLICT(id) DO UPDATE`: the row keeps its rowid (insertion order).
    func save<R: StoredRecord>(_ record: R) throws {
        let statement = try statements.statement(R.self, .upsert, in: db) {
            let names = R.columns.map(\.quotedDatabaseIdentifier)
            let updates = names.filter { $0 != "id".quotedDatabaseIdentifier }.map { "\($0) = excluded.\($0)" }
            let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
            return "INSERT INTO \(R.table.quotedDatabaseIdentifier) (\(names.joined(separator: ", "))) VALUES (\(placeholders)) "
                + "ON CONFLICT(id) DO UPDATE SET \(updates.joined(separator: ", "))"
        }
        try statement.execute(arguments: StatementArguments(record.rowValues.map(Self.databaseValue)))
        // A cached statement would keep its last arguments (keys, hashes) until its next use.
        statement.setUncheckedArguments(StatementArguments())
    }

    func delete<R: StoredRecord>(_ type: R.Type, id: String) throws {
        let statement = try statements.statement(R.self, .delete, in: db) {
            "DELETE FROM \(R.table.quotedDatabaseIdentifier) WHERE id = ?"
        }
        try statement.execute(arguments: [id])
    }

    func deleteAll<R: StoredRecord>(_ type: R.Type, where filters: [StoreFilter]) throws {
        let statement = try statements.statement(R.self, .deleteWhere(StatementCache.Shape(filters)), in: db) {
            Self.select("DELETE FROM \(R.table.quotedDatabaseIdentifier)", filters)
        }
        try statement.execute(arguments: StatementArguments(Self.arguments(filters)))
    }

    /// The records the statement's rows hold, each read by its record.
    private func records<R: StoredRecord>(_ type: R.Type, _ statement: Statement, _ arguments: [(any DatabaseValueConvertible)?]) throws -> [R] {
        let rows = try Row.fetchCursor(statement, arguments: StatementArguments(arguments))
        var records: [R] = []
        while let row = try rows.next() {
            var reader = RowReader((0..<row.count).map { Self.storeValue(row[$0] as DatabaseValue) })
            records.append(try R(row: &reader))
        }
        return records
    }

    /// The record's columns, quoted, in its order.
    private static func columns<R: StoredRecord>(_ type: R.Type) -> String {
        R.columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
    }

    /// `head WHERE …` of every filter, a placeholder for each value (none for a null).
    private static func select(_ head: String, _ filters: [StoreFilter]) -> String {
        guard !filters.isEmpty else { return head }
        let clauses = filters.map { filter -> String in
            let column = filter.column.quotedDatabaseIdentifier
            guard filter.value != .null else { return filter.comparison == .notEqual ? "\(column) IS NOT NULL" : "\(column) IS NULL" }
            return "\(column) \(filter.comparison.rawValue) ?"
        }
        return head + " WHERE " + clauses.joined(separator: " AND ")
    }

    /// The values the filters' placeholders take.
    private static func arguments(_ filters: [StoreFilter]) -> [(any DatabaseValueConvertible)?] {
        filters.compactMap { $0.value == .null ? nil : databaseValue($0.value) }
    }

    /// A value as SQLite keeps it: flags as integers, bytes as BLOBs.
    static func databaseValue(_ value: StoreValue) -> DatabaseValue {
        switch value {
        case .null: .null
        case .text(let text): text.databaseValue
        case .int(let number): number.databaseValue
        case .bool(let flag): flag.databaseValue
        case .bytes(let bytes): Data(bytes).databaseValue
        }
    }

    /// A value SQLite returned (no column is real: a real reads as the integer it is, if it is one).
    static func storeValue(_ value: DatabaseValue) -> StoreValue {
        switch value.storage {
        case .null: .null
        case .int64(let number): .int(number)
        case .double(let number): Int64(exactly: number).map(StoreValue.int) ?? .null
        case .string(let text): .text(text)
        case .blob(let data): .bytes([UInt8](data))
        }
    }
}
