import GRDB
import LatchkeyCore

/// The statements that read, write and delete one record by id, prepared once per record type on the store's single connection.
///
/// Looked up by type, not by SQL text: no string is built or hashed per statement. Used only inside the
/// database queue, so never from two threads at once.
final class StatementCache: @unchecked Sendable {
    enum Operation: UInt8 { case fetch, delete }

    private struct Key: Hashable {
        let type: ObjectIdentifier
        let operation: Operation
    }

    private var prepared: [Key: Statement] = [:]
    private var upserts: [ObjectIdentifier: (statement: Statement, columns: [String])] = [:]

    func statement<R: StoredRecord>(_ operation: Operation, _ type: R.Type, in db: Database, sql: () -> String) throws -> Statement {
        let key = Key(type: ObjectIdentifier(type), operation: operation)
        if let statement = prepared[key] { return statement }
        let statement = try db.makeStatement(sql: sql())
        prepared[key] = statement
        return statement
    }

    /// `INSERT … ON CONFLICT(id) DO UPDATE` over the record's columns, in the encoder's order
    /// (a record encodes every property, nil as NULL, so one type always has the same columns).
    func upsert<R: StoredRecord>(_ type: R.Type, columns: [String], in db: Database) throws -> Statement {
        if let known = upserts[ObjectIdentifier(type)], known.columns == columns { return known.statement }
        let names = columns.map(\.quotedDatabaseIdentifier)
        let updates = names.filter { $0 != "id".quotedDatabaseIdentifier }.map { "\($0) = excluded.\($0)" }
        let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
        let sql =
            "INSERT INTO \(R.table.quotedDatabaseIdentifier) (\(names.joined(separator: ", "))) VALUES (\(placeholders)) "
            + "ON CONFLICT(id) DO UPDATE SET \(updates.joined(separator: ", "))"
        let statement = try db.makeStatement(sql: sql)
        upserts[ObjectIdentifier(type)] = (statement, columns)
        return statement
    }
}
