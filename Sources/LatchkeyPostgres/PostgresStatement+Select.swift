import LatchkeyStorage

extension PostgresStatement {
    /// `head WHERE …` (`SELECT` a record's columns `FROM` its table: `PostgresStatementTexts.select(from:columns:)`)
    /// in insertion order (or newest first), at most `limit` rows.
    static func selectAll(_ head: String, _ filters: [StoreFilter], newestFirst: Bool, limit: Int?) -> PostgresStatement {
        var parameters: [PostgresValue] = []
        var sql = select(head, filters, &parameters)
        sql += newestFirst ? " ORDER BY \"_seq\" DESC" : " ORDER BY \"_seq\""
        sql += Self.limit(limit, &parameters)
        return PostgresStatement(sql: sql, parameters: parameters)
    }

    /// ` LIMIT $n`: a parameter, not a literal, so one prepared statement serves whatever limit a caller asks for.
    static func limit(_ limit: Int?, _ parameters: inout [PostgresValue]) -> String {
        guard let limit else { return "" }
        parameters.append(.int(Int64(max(limit, 0))))
        return " LIMIT $\(parameters.count)"
    }

    /// `head WHERE …` of every filter, their values appended to `parameters` (numbered after those already there).
    static func select(_ head: String, _ filters: [StoreFilter], _ parameters: inout [PostgresValue]) -> String {
        guard !filters.isEmpty else { return head }
        var clauses: [String] = []
        for filter in filters {
            let column = quoted(filter.column)
            switch filter.value {
            case .null:
                clauses.append(filter.comparison == .notEqual ? "\(column) IS NOT NULL" : "\(column) IS NULL")
                continue
            case .text(let text): parameters.append(.text(text))
            case .int(let number): parameters.append(.int(number))
            case .bool(let flag): parameters.append(.bool(flag))
            case .bytes(let bytes): parameters.append(.bytes(bytes))
            }
            clauses.append(
                filter.comparison == .startsWith
                    ? "starts_with(\(column), $\(parameters.count))" : "\(column) \(filter.comparison.rawValue) $\(parameters.count)")
        }
        return head + " WHERE " + clauses.joined(separator: " AND ")
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
