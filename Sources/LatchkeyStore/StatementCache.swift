import GRDB
import LatchkeyStorage

/// The store's statements, prepared once per record type and shape on the store's single connection.
///
/// Looked up by type and shape (the filters' columns and comparisons, the order, whether limited),
/// not by SQL text: no SQL is built or hashed per call. Used only inside the database queue, so
/// never from two threads at once.
final class StatementCache: @unchecked Sendable {
    /// What a statement does.
    enum Operation: Hashable {
        case fetch, delete, upsert, insertNumbered
        /// The upsert that leaves the indexed columns as they are (`Transaction.save`); nil where
        /// every update must set the whole row.
        case upsertKeepingIndexes
        case select(Shape)
        case count(Shape)
        case minimum(String, Shape)
        case deleteWhere(Shape)
    }

    /// The shape of a filtered statement: what its SQL depends on (values are its arguments).
    struct Shape: Hashable {
        var filters: [Filter]
        var newestFirst = false
        var limited = false

        struct Filter: Hashable {
            var column: String
            var comparison: StoreFilter.Comparison
            var null: Bool
        }

        init(_ filters: [StoreFilter], newestFirst: Bool = false, limited: Bool = false) {
            self.filters = filters.map { Filter(column: $0.column, comparison: $0.comparison, null: $0.value == .null) }
            self.newestFirst = newestFirst
            self.limited = limited
        }
    }

    private struct Key: Hashable {
        let type: ObjectIdentifier
        let operation: Operation
    }

    private var prepared: [Key: Statement?] = [:]
    private var controls: [Control: Statement] = [:]

    /// The statements that begin and end a write transaction.
    enum Control: String {
        case begin = "BEGIN IMMEDIATE TRANSACTION"
        case beginRead = "BEGIN DEFERRED TRANSACTION"
        case commit = "COMMIT TRANSACTION"
        case rollback = "ROLLBACK TRANSACTION"
    }

    /// `control`'s statement, prepared the first time (GRDB's `inTransaction` parses each anew).
    func statement(_ control: Control, in db: Database) throws -> Statement {
        if let statement = controls[control] { return statement }
        let statement = try db.makeStatement(sql: control.rawValue)
        controls[control] = statement
        return statement
    }

    /// The statement of `operation` on `type`'s table, prepared from `sql` the first time.
    func statement<R: StoredRecord>(_ type: R.Type, _ operation: Operation, in db: Database, sql: () throws -> String) throws -> Statement {
        let key = Key(type: ObjectIdentifier(type), operation: operation)
        if let statement = prepared[key] ?? nil { return statement }
        let statement = try db.makeStatement(sql: sql())
        prepared[key] = statement
        return statement
    }

    /// The statement of `operation` on `type`'s table, or nil where `sql` gives none: either is
    /// found out once.
    func optionalStatement<R: StoredRecord>(
        _ type: R.Type, _ operation: Operation, in db: Database, sql: () throws -> String?
    ) throws
        -> Statement?
    {
        let key = Key(type: ObjectIdentifier(type), operation: operation)
        if let known = prepared[key] { return known }
        let statement = try sql().map { try db.makeStatement(sql: $0) }
        prepared[key] = .some(statement)
        return statement
    }
}
