import GRDB
import GRDBSQLite
import LatchkeyStorage

/// One open transaction.
///
/// Every statement is prepared once per connection and kept per record type and shape
/// (`StatementCache`); a record reads its row and writes its values itself (`StoredRecord`), and
/// the store binds and reads SQLite's values directly (`SQLiteStatementRun`): no row object, no
/// argument list, no column lookup by name on the way.
struct Transaction: StoreTransaction {
    let db: Database
    let statements: StatementCache
    /// A read transaction (`SQLiteStore.read`): every write throws `WriteInReadTransaction`.
    var readOnly = false

    /// A write in a read transaction: a bug, refused before it reaches SQLite (it fails the call, nothing written).
    struct WriteInReadTransaction: Error {}

    private func requireWritable() throws {
        if readOnly { throw WriteInReadTransaction() }
    }

    func fetch<R: StoredRecord>(_ type: R.Type, id: String) throws -> R? {
        let statement = try statements.statement(R.self, .fetch, in: db) {
            "SELECT \(Self.columns(R.self)) FROM \(R.table.quotedDatabaseIdentifier) WHERE id = ?"
        }
        return try records(R.self, statement, [.text(id)]).first
    }

    func fetchAll<R: StoredRecord>(_ type: R.Type, where filters: [StoreFilter], newestFirst: Bool, limit: Int?) throws -> [R] {
        let shape = StatementCache.Shape(filters, newestFirst: newestFirst, limited: limit != nil)
        let statement = try statements.statement(R.self, .select(shape), in: db) {
            var sql = Self.select("SELECT \(Self.columns(R.self)) FROM \(R.table.quotedDatabaseIdentifier)", filters)
            sql += newestFirst ? " ORDER BY rowid DESC" : " ORDER BY rowid"
            return sql + (limit == nil ? "" : " LIMIT ?")
        }
        return try records(R.self, statement, Self.arguments(filters) + (limit.map { [.int(Int64(max($0, 0)))] } ?? []))
    }

    func count<R: StoredRecord>(_ type: R.Type, where filters: [StoreFilter]) throws -> Int {
        Int(try aggregate(R.self, "COUNT(*)", .count(StatementCache.Shape(filters)), filters) ?? 0)
    }

    func minimum<R: StoredRecord>(_ type: R.Type, _ column: String, where filters: [StoreFilter]) throws -> Int64? {
        try aggregate(R.self, "MIN(\(column.quotedDatabaseIdentifier))", .minimum(column, StatementCache.Shape(filters)), filters)
    }

    /// The one integer `SELECT expression FROM table WHERE …` answers over the rows matching `filters` (nil: NULL).
    private func aggregate<R: StoredRecord>(
        _ type: R.Type, _ expression: String, _ operation: StatementCache.Operation, _ filters: [StoreFilter]
    ) throws -> Int64? {
        let statement = try statements.statement(R.self, operation, in: db) {
            Self.select("SELECT \(expression) FROM \(R.table.quotedDatabaseIdentifier)", filters)
        }
        var value: Int64?
        try SQLiteStatementRun(statement, db).run(Self.arguments(filters)) { row in if case .int(let number)? = row.first { value = number } }
        return value
    }

    /// `INSERT … ON CONFLICT(id) DO UPDATE`: the row keeps its rowid (insertion order).
    ///
    /// SQLite rewrites every index whose column an UPDATE sets, whether its value changed or not:
    /// a passkey's sign-in, setting its counter, would write both of the passkey table's index pages
    /// too. So an update first sets only the columns no index holds, and only where the indexed ones
    /// already hold the row's values (`upsertKeepingIndexes`); where one of them differs, that
    /// statement changes nothing and the whole row is set.
    func save<R: StoredRecord>(_ record: R) throws {
        try requireWritable()
        let values = record.rowValues
        if let keeping = try statements.optionalStatement(R.self, .upsertKeepingIndexes, in: db, sql: { try upsertKeepingIndexes(R.self) }) {
            try SQLiteStatementRun(keeping, db).run(values)
            guard db.changesCount == 0 else { return }
        }
        let statement = try statements.statement(R.self, .upsert, in: db) {
            Self.upsert(R.self, setting: R.columns.filter { $0 != "id" })
        }
        try SQLiteStatementRun(statement, db).run(values)
    }

    /// The upsert of `columns` (every other column is written on insert only).
    private static func upsert<R: StoredRecord>(_ type: R.Type, setting columns: [String], where condition: String = "") -> String {
        let names = R.columns.map(\.quotedDatabaseIdentifier)
        let updates = columns.map(\.quotedDatabaseIdentifier).map { "\($0) = excluded.\($0)" }
        let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
        return "INSERT INTO \(R.table.quotedDatabaseIdentifier) (\(names.joined(separator: ", "))) VALUES (\(placeholders)) "
            + "ON CONFLICT(id) DO UPDATE SET \(updates.joined(separator: ", "))\(condition)"
    }

    /// The upsert that sets only the columns no index holds, where the indexed ones hold the row's
    /// values; nil where it would not help (no indexed column but the id, or nothing else) or could
    /// be wrong (an index on an expression, or a partial one, whose rows depend on other columns).
    private func upsertKeepingIndexes<R: StoredRecord>(_ type: R.Type) throws -> String? {
        let table = R.table.quotedDatabaseIdentifier
        let indexes = try Row.fetchAll(db, sql: "SELECT name, partial FROM pragma_index_list(?)", arguments: [R.table])
        var indexed: Set<String> = []
        for index in indexes {
            guard let name: String = index["name"], index["partial"] as Int? == 0 else { return nil }
            let columns = try Row.fetchAll(db, sql: "SELECT name FROM pragma_index_info(?)", arguments: [name])
            for column in columns {
                guard let column: String = column["name"] else { return nil }
                indexed.insert(column)
            }
        }
        indexed.remove("id")
        let kept = R.columns.filter { indexed.contains($0) }
        let set = R.columns.filter { $0 != "id" && !indexed.contains($0) }
        guard !kept.isEmpty, !set.isEmpty else { return nil }
        let unchanged = kept.map(\.quotedDatabaseIdentifier).map { "\(table).\($0) IS excluded.\($0)" }
        return Self.upsert(R.self, setting: set, where: " WHERE " + unchanged.joined(separator: " AND "))
    }

    /// One writer at a time holds the database: the next number is the largest so far plus one, and
    /// write order is commit order.
    func insertNumbered<R: NumberedRecord>(_ record: R) throws {
        try requireWritable()
        let statement = try statements.statement(R.self, .insertNumbered, in: db) {
            let table = R.table.quotedDatabaseIdentifier
            let names = R.columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
            let placeholders = R.columns.map { $0 == "seq" ? "(SELECT COALESCE(MAX(\"seq\"), 0) + 1 FROM \(table))" : "?" }
            return "INSERT INTO \(table) (\(names)) VALUES (\(placeholders.joined(separator: ", ")))"
        }
        let values = zip(R.columns, record.rowValues).filter { $0.0 != "seq" }.map(\.1)
        try SQLiteStatementRun(statement, db).run(values)
    }

    func delete<R: StoredRecord>(_ type: R.Type, id: String) throws {
        try requireWritable()
        let statement = try statements.statement(R.self, .delete, in: db) {
            "DELETE FROM \(R.table.quotedDatabaseIdentifier) WHERE id = ?"
        }
        try SQLiteStatementRun(statement, db).run([.text(id)])
    }

    func deleteAll<R: StoredRecord>(_ type: R.Type, where filters: [StoreFilter]) throws {
        try requireWritable()
        let statement = try statements.statement(R.self, .deleteWhere(StatementCache.Shape(filters)), in: db) {
            Self.select("DELETE FROM \(R.table.quotedDatabaseIdentifier)", filters)
        }
        try SQLiteStatementRun(statement, db).run(Self.arguments(filters))
    }

    /// Begins, commits or rolls back the transaction.
    func run(_ control: StatementCache.Control) throws {
        try SQLiteStatementRun(statements.statement(control, in: db), db).run([])
    }

    /// The records the statement's rows hold, each read by its record.
    private func records<R: StoredRecord>(_ type: R.Type, _ statement: Statement, _ arguments: [StoreValue]) throws -> [R] {
        var records: [R] = []
        try SQLiteStatementRun(statement, db).run(arguments) { values in
            var row = RowReader(values)
            records.append(try R(row: &row))
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
            return filter.comparison == .startsWith ? "instr(\(column), ?) = 1" : "\(column) \(filter.comparison.rawValue) ?"
        }
        return head + " WHERE " + clauses.joined(separator: " AND ")
    }

    /// The values the filters' placeholders take.
    private static func arguments(_ filters: [StoreFilter]) -> [StoreValue] {
        filters.compactMap { $0.value == .null ? nil : $0.value }
    }
}

/// One run of a prepared statement through SQLite's C API: its values bound (flags as integers,
/// bytes as BLOBs), each row's values read as `StoreValue`s, then reset with its bindings cleared (a
/// cached statement keeps no key or hash until its next use).
struct SQLiteStatementRun {
    let statement: Statement
    let db: Database

    init(_ statement: Statement, _ db: Database) {
        self.statement = statement
        self.db = db
    }

    /// Runs the statement with `values` bound, handing each row to `row`.
    /// - Throws: `DatabaseError` as GRDB would (busy, constraint…), or what `row` throws.
    func run(_ values: [StoreValue], _ row: ([StoreValue]) throws -> Void = { _ in }) throws {
        // Every run resets its statement when it ends (a new one needs no reset), so it starts reset.
        let handle = statement.sqliteStatement
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        for (index, value) in values.enumerated() { try check(bind(value, Int32(index + 1), handle)) }
        let columns = sqlite3_column_count(handle)
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else { return try check(code) }
            try row((0..<columns).map { column(Int32($0), handle) })
        }
    }

    private func bind(_ value: StoreValue, _ index: Int32, _ handle: OpaquePointer) -> Int32 {
        switch value {
        case .null: return sqlite3_bind_null(handle, index)
        case .int(let number): return sqlite3_bind_int64(handle, index, number)
        case .bool(let flag): return sqlite3_bind_int64(handle, index, flag ? 1 : 0)
        case .text(let text): return text.withCString { sqlite3_bind_text(handle, index, $0, -1, Self.transient) }
        case .bytes(let bytes):
            // An empty blob is a blob, not NULL (a blob's pointer may be nil when it has no bytes).
            guard !bytes.isEmpty else { return sqlite3_bind_zeroblob(handle, index, 0) }
            return bytes.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), Self.transient) }
        }
    }

    /// A column of the current row (no column is real: a real reads as the integer it is, if it is one).
    private func column(_ index: Int32, _ handle: OpaquePointer) -> StoreValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .int(sqlite3_column_int64(handle, index))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(handle, index))
            guard let text = sqlite3_column_text(handle, index) else { return .text("") }
            return .text(String(decoding: UnsafeRawBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, index))
            guard let blob = sqlite3_column_blob(handle, index), count > 0 else { return .bytes([]) }
            return .bytes(Array(UnsafeRawBufferPointer(start: blob, count: count)))
        case SQLITE_FLOAT: return Int64(exactly: sqlite3_column_double(handle, index)).map(StoreValue.int) ?? .null
        default: return .null
        }
    }

    /// Throws SQLite's error for `code` unless it is success.
    private func check(_ code: Int32) throws {
        guard code != SQLITE_OK else { return }
        let message = db.sqliteConnection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message)
    }

    /// SQLite copies what it binds (`SQLITE_TRANSIENT`).
    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
}
