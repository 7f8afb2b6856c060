extension PostgresStatement {
    /// `statements` with each run of writes to different tables made one statement:
    /// `WITH "w0" AS (write), "w1" AS (write) … SELECT`.
    ///
    /// PostgreSQL runs a statement's data-modifying WITH parts on one snapshot, in no set order, none
    /// seeing another's rows: the same as one after the other when no two touch the same table (a
    /// write reads nothing but its own table). A run is cut before a table it has already written.
    /// Each statement costs the server a portal, an executor and its locks: a transaction's writes
    /// cost one of each instead of one per row.
    static func combiningWrites(_ statements: [PostgresStatement], texts: PostgresStatementTexts) -> [PostgresStatement] {
        var out: [PostgresStatement] = []
        var run: [PostgresStatement] = []
        func close() {
            if run.count == 1 { out.append(run[0]) } else if !run.isEmpty { out.append(combined(run, texts)) }
            run.removeAll()
        }
        for statement in statements {
            guard let table = statement.writes else {
                close()
                out.append(statement)
                continue
            }
            if run.contains(where: { $0.writes == table }) { close() }
            run.append(statement)
        }
        close()
        return out
    }

    /// One statement of several writes, their parameters numbered on from each other's.
    private static func combined(_ writes: [PostgresStatement], _ texts: PostgresStatementTexts) -> PostgresStatement {
        let sql = texts.combination(of: writes.map(\.sql)) {
            var parts: [String] = []
            var count = 0
            for (index, write) in writes.enumerated() {
                parts.append("\"w\(index)\" AS (\(renumbered(write.sql, after: count)))")
                count += write.parameters.count
            }
            return "WITH " + parts.joined(separator: ", ") + " SELECT"
        }
        return PostgresStatement(sql: sql, parameters: writes.flatMap(\.parameters))
    }

    /// `sql` with each placeholder `$n` made `$(n + offset)` (the store's SQL has `$` nowhere else:
    /// identifiers are the records' property names, values are parameters).
    static func renumbered(_ sql: String, after offset: Int) -> String {
        guard offset > 0 else { return sql }
        let dollar = UInt8(ascii: "$")
        var out: [UInt8] = []
        out.reserveCapacity(sql.utf8.count + 16)
        // The digits read after a `$` so far (nil: not in a placeholder).
        var number: Int?
        var afterDollar = false
        func flush() {
            if let value = number { out += Array(String(value + offset).utf8) }
            number = nil
        }
        for byte in sql.utf8 {
            if afterDollar, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                number = (number ?? 0) * 10 + Int(byte - UInt8(ascii: "0"))
                continue
            }
            flush()
            afterDollar = byte == dollar
            out.append(byte)
        }
        flush()
        return String(decoding: out, as: UTF8.self)
    }
}
