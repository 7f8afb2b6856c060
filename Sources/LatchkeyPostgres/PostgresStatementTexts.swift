/// The SQL of the store's statements, built once per table or combination and kept for the
/// connection's life: building it again on every call cost a tenth of a call's CPU.
///
/// Used under the store's connection lock, like the connection that holds it.
final class PostgresStatementTexts {
    private var heads: [String: String] = [:]
    private var joined: [String: String] = [:]
    private var byId: [String: String] = [:]
    private var deletes: [String: String] = [:]
    private var upserts: [String: (names: [String], sql: String)] = [:]
    private var updates: [String: (names: [String], sql: String)] = [:]
    private var combined: [[String]: String] = [:]
    /// Combinations kept at most (each is a path through the domain's writes; far fewer in practice).
    static let combinationLimit = 512

    /// `SELECT "c1", "c2", … FROM table`: a record's columns, in its order (a table has one record
    /// type), kept under `table` and `variant` (another list of the same table's columns).
    func select(from table: String, columns: [String], as variant: String = "") -> String {
        let key = variant.isEmpty ? table : table + "/" + variant
        if let sql = heads[key] { return sql }
        let sql = "SELECT \(columns.map(quoted).joined(separator: ", ")) FROM \(quoted(table))"
        heads[key] = sql
        return sql
    }

    /// `t."c1", t."c2", …`: a record's columns of the table joined as `t`.
    func columns(joined table: String, columns: [String]) -> String {
        if let list = joined[table] { return list }
        let list = columns.map { "t." + quoted($0) }.joined(separator: ", ")
        joined[table] = list
        return list
    }

    /// `SELECT "c1", … FROM table WHERE id = $1`.
    func select(byIdIn table: String, columns: [String]) -> String {
        if let sql = byId[table] { return sql }
        let sql = select(from: table, columns: columns) + " WHERE id = $1"
        byId[table] = sql
        return sql
    }

    /// `DELETE FROM table WHERE id = $1`.
    func delete(byIdIn table: String) -> String {
        if let sql = deletes[table] { return sql }
        let sql = "DELETE FROM \(quoted(table)) WHERE id = $1"
        deletes[table] = sql
        return sql
    }

    /// `INSERT … ON CONFLICT (id) DO UPDATE` of these columns: the row keeps its `_seq` (insertion order).
    func upsert(into table: String, columns names: [String]) -> String {
        if let known = upserts[table], known.names == names { return known.sql }
        let quotedNames = names.map(quoted)
        let placeholders = quotedNames.indices.map { "$\($0 + 1)" }
        let updates = quotedNames.filter { $0 != "\"id\"" }.map { "\($0) = EXCLUDED.\($0)" }
        var sql = "INSERT INTO \(quoted(table)) (\(quotedNames.joined(separator: ", "))) "
        sql += "VALUES (\(placeholders.joined(separator: ", "))) ON CONFLICT (id) DO "
        sql += updates.isEmpty ? "NOTHING" : "UPDATE SET \(updates.joined(separator: ", "))"
        upserts[table] = (names, sql)
        return sql
    }

    /// `UPDATE table SET … WHERE id = …` of these columns, each value the parameter of its column's
    /// place (as in `upsert`).
    func update(_ table: String, columns names: [String]) -> String {
        if let known = updates[table], known.names == names { return known.sql }
        let assignments = names.indices.filter { names[$0] != "id" }.map { "\(quoted(names[$0])) = $\($0 + 1)" }
        let idPlace = (names.firstIndex(of: "id") ?? 0) + 1
        let sql = "UPDATE \(quoted(table)) SET \(assignments.joined(separator: ", ")) WHERE id = $\(idPlace)"
        updates[table] = (names, sql)
        return sql
    }

    /// The one statement of several writes (see `PostgresStatement.combiningWrites`).
    func combination(of parts: [String], build: () -> String) -> String {
        if let sql = combined[parts] { return sql }
        if combined.count >= Self.combinationLimit { combined.removeAll() }
        let sql = build()
        combined[parts] = sql
        return sql
    }
}
