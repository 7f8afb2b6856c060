import LatchkeyStorage

/// What a transaction's reads told it: the reads its body stated (`StoreTransaction.willRead`) and
/// not sent yet, and what the reads answered, kept under the reads the body makes.
///
/// A row found by id (or through another row's column) is known by its id, whether there or not;
/// rows a filter found, by the query and each by its id (an id not among them tells nothing); a
/// row the body wrote, as written. A write to a table forgets what was read of it (of a row written
/// by id, only that row): a read stated and not yet sent goes out after the write and sees it.
struct PostgresReadSet {
    /// A read the body may make: a row by id, or a statement as it is.
    enum Key: Hashable {
        case row(table: String, id: String)
        case statement(sql: String, parameters: [PostgresValue])

        init(_ statement: PostgresStatement) { self = .statement(sql: statement.sql, parameters: statement.parameters) }
    }

    /// A read stated, with its statement and the key it is asked once under, both worked out once.
    struct Stated {
        var read: StoreRead
        var statement: PostgresStatement
        var key: Key
    }

    /// The rows a read answered, and the tables whose writes may change them.
    private struct Answer {
        var rows: PostgresRows
        var tables: [String]
    }

    /// Reads stated and not sent yet.
    private(set) var stated: [Stated] = []
    private var answered: [Key: Answer] = [:]

    /// What the read `key` answered, if the transaction knows.
    func answer(_ key: Key) -> PostgresRows? { answered[key]?.rows }

    /// Whether `key` is stated and not sent.
    func isStated(_ key: Key) -> Bool { stated.contains { $0.key == key } }

    /// States reads (each once: one stated again, or known already, is skipped).
    mutating func state(_ reads: [StoreRead], texts: PostgresStatementTexts) {
        for read in reads {
            let statement = Self.statement(read, texts)
            let key: Key = if case .row(.value(let id)) = read.shape { .row(table: read.table, id: id) } else { Key(statement) }
            guard answered[key] == nil, !isStated(key) else { continue }
            stated.append(Stated(read: read, statement: statement, key: key))
        }
    }

    /// The reads stated, to send now (they are stated no more).
    mutating func takeStated() -> [Stated] {
        defer { stated.removeAll() }
        return stated
    }

    /// Forgets the reads stated and not sent (the body returned: nobody will make them).
    mutating func discardStated() { stated.removeAll() }

    /// Forgets what was read of `table` (of a write to one row by id: that row only).
    mutating func forget(_ table: String, row id: String?) {
        guard !answered.isEmpty else { return }
        answered = answered.filter { key, answer in
            switch key {
            case .row(let other, let otherId): return other != table || (id != nil && otherId != id)
            case .statement: return !answer.tables.contains(table)
            }
        }
    }

    /// Knows the row `id` of `table` as the body wrote it (`rows` empty: deleted).
    mutating func know(_ table: String, id: String, _ rows: PostgresRows) {
        answered[.row(table: table, id: id)] = Answer(rows: rows, tables: [table])
    }

    /// Keeps what a stated read answered, under the read the body makes: a row by its id (there
    /// or not), the rows of a query by the query (its id filled in), and each row found by its id.
    mutating func remember(_ entry: Stated, _ rows: PostgresRows, texts: PostgresStatementTexts) {
        let table = entry.read.table
        switch entry.read.shape {
        case .row(.value):
            answered[entry.key] = Answer(rows: rows, tables: [table])
        case .rows(nil, _, _, _):
            answered[entry.key] = Answer(rows: rows, tables: [table])
            rememberEach(rows, of: table)
        case .row(let key):
            answered[entry.key] = Answer(rows: rows, tables: [table] + key.tables)
            for (id, found) in Self.byReference(rows) { know(table, id: id, found) }
        case .rows(let keyed?, let filters, let newestFirst, let limit):
            answered[entry.key] = Answer(rows: rows, tables: [table] + keyed.key.tables)
            for (id, found) in Self.byReference(rows) {
                let filter = StoreFilter(named: keyed.column, .equal, .text(id))
                let head = texts.select(from: table, columns: entry.read.columns)
                let query = PostgresStatement.selectAll(head, [filter] + filters, newestFirst: newestFirst, limit: limit)
                answered[Key(query)] = Answer(rows: found, tables: [table])
                rememberEach(found, of: table)
            }
        }
    }

    /// Each row of a table read by a filter, by its id.
    private mutating func rememberEach(_ rows: PostgresRows, of table: String) {
        guard let idColumn = rows.columns.firstIndex(of: "id") else { return }
        for row in rows.rows {
            guard case .text(let id) = row[idColumn] else { continue }
            know(table, id: id, PostgresRows(columns: rows.columns, rows: [row]))
        }
    }

    /// What a read by a key found for each id the key found (none for a null id), without `_ref`
    /// and without the null row of a join that found nothing; the rows of one id come together.
    private static func byReference(_ rows: PostgresRows) -> [(String, PostgresRows)] {
        let columns = Array(rows.columns.dropFirst())
        guard let idColumn = columns.firstIndex(of: "id") else { return [] }
        var found: [(String, PostgresRows)] = []
        for row in rows.rows {
            guard case .text(let id)? = row.first else { continue }
            if found.last?.0 != id { found.append((id, PostgresRows(columns: columns, rows: []))) }
            let values = Array(row.dropFirst())
            if values[idColumn] != .null { found[found.count - 1].1.rows.append(values) }
        }
        return found
    }

    /// The statement a stated read runs.
    ///
    /// A read by a key answers each id the key found first (`_ref`), then what it found for it
    /// (null columns when nothing): a join, so a read that waits for another travels with it.
    private static func statement(_ read: StoreRead, _ texts: PostgresStatementTexts) -> PostgresStatement {
        var parameters: [PostgresValue] = []
        let sql: String
        let columns = texts.columns(joined: read.table, columns: read.columns)
        switch read.shape {
        case .row(.value(let id)):
            return PostgresStatement(sql: texts.select(byIdIn: read.table, columns: read.columns), parameters: [.text(id)])
        case .rows(nil, let filters, let newestFirst, let limit):
            let head = texts.select(from: read.table, columns: read.columns)
            return PostgresStatement.selectAll(head, filters, newestFirst: newestFirst, limit: limit)
        case .row(let key):
            let keys = Self.keys(key, &parameters)
            sql = "SELECT k.\"_ref\", \(columns) FROM \(keys) LEFT JOIN \(quoted(read.table)) t ON t.id = k.\"_ref\""
        case .rows(let keyed?, let filters, let newestFirst, let limit):
            let keys = Self.keys(keyed.key, &parameters)
            let head = texts.select(from: read.table, columns: read.columns + ["_seq"], as: "sequenced")
            var inner = PostgresStatement.select(head, filters, &parameters)
            inner += (filters.isEmpty ? " WHERE " : " AND ") + "\(quoted(keyed.column)) = k.\"_ref\""
            inner += (newestFirst ? " ORDER BY \"_seq\" DESC" : " ORDER BY \"_seq\"") + PostgresStatement.limit(limit, &parameters)
            sql =
                "SELECT k.\"_ref\", \(columns) FROM \(keys) LEFT JOIN LATERAL (\(inner)) t ON true"
                + (newestFirst ? " ORDER BY k.\"_ref\", t.\"_seq\" DESC" : " ORDER BY k.\"_ref\", t.\"_seq\"")
        }
        return PostgresStatement(sql: sql, parameters: parameters)
    }

    /// The ids a key finds, as a subquery `k` of one column `_ref`.
    private static func keys(_ key: StoreKey, _ parameters: inout [PostgresValue]) -> String {
        "(\(ids(key, &parameters))) AS k(\"_ref\")"
    }

    /// A query of one column: the ids a key finds.
    private static func ids(_ key: StoreKey, _ parameters: inout [PostgresValue]) -> String {
        switch key {
        case .value(let id):
            parameters.append(.text(id))
            return "SELECT $\(parameters.count)::text"
        case .column(let table, let column, let bytesAsText, let rows):
            // 'escape' never fails, and spells ASCII as itself: the ids a byte column holds.
            let value = bytesAsText ? "encode(\(quoted(column)), 'escape')" : quoted(column)
            // DISTINCT: rows of a keyed read come once for each id, however many rows hold it.
            let head = "SELECT DISTINCT \(value) FROM \(quoted(table)) WHERE id "
            if case .value(let id) = rows {
                parameters.append(.text(id))
                return head + "= $\(parameters.count)"
            }
            return head + "IN (\(ids(rows, &parameters)))"
        case .ids(let table, let filters, nil):
            return PostgresStatement.select("SELECT id FROM \(quoted(table))", filters, &parameters)
        case .ids(let table, let filters, let keyed?):
            let head = PostgresStatement.select("SELECT id FROM \(quoted(table))", filters, &parameters)
            return head + (filters.isEmpty ? " WHERE " : " AND ") + "\(quoted(keyed.column)) IN (\(ids(keyed.key, &parameters)))"
        case .first(let table, let filters, let newestFirst, let limit):
            let head = PostgresStatement.select("SELECT id FROM \(quoted(table))", filters, &parameters)
            return head + (newestFirst ? " ORDER BY \"_seq\" DESC" : " ORDER BY \"_seq\"") + PostgresStatement.limit(limit, &parameters)
        case .either(let one, let other):
            return "(\(ids(one, &parameters))) UNION (\(ids(other, &parameters)))"
        }
    }
}
