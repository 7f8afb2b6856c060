import CLibpq
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Rows of one result: column names, then each row's values in column order.
struct PostgresRows {
    var columns: [String]
    var rows: [[PostgresValue]]
}

/// One libpq connection, synchronous like the stdio loop. Statements with parameters are
/// prepared once per connection (named by their text) and run with text-format parameters.
/// Not thread-safe: its owner serialises access.
final class PostgresConnection {
    private let conn: OpaquePointer
    private var prepared: [String: String] = [:]

    /// Connects with `conninfo` (a URI or key=value string); `connect_timeout` bounds the wait.
    /// - Throws: `PostgresError` with an empty SQLSTATE when the server cannot be reached.
    init(conninfo: String, connectTimeoutSeconds: Int = 3, applicationName: String = "latchkey") throws {
        let keywords = ["dbname", "connect_timeout", "application_name"]
        let values = [conninfo, String(connectTimeoutSeconds), applicationName]
        let connection: OpaquePointer? = withCStrings(keywords) { keywordPointers in
            withCStrings(values) { valuePointers in
                PQconnectdbParams(keywordPointers, valuePointers, 1)
            }
        }
        guard let connection else { throw PostgresError(sqlState: "", context: "connect") }
        guard PQstatus(connection) == CONNECTION_OK else {
            PQfinish(connection)
            throw PostgresError(sqlState: "", context: "connect")
        }
        conn = connection
        // bytea comes back as hex; integers as decimal text; no notices on stderr.
        _ = try? execute("SET bytea_output = 'hex'")
        PQsetNoticeProcessor(conn, { _, _ in }, nil)
    }

    deinit { PQfinish(conn) }

    /// Whether libpq still believes the connection is up.
    var isUp: Bool { PQstatus(conn) == CONNECTION_OK }

    /// The socket, for poll(2) (-1 when closed).
    var socket: Int32 { PQsocket(conn) }

    /// Runs SQL without parameters (may hold several statements).
    @discardableResult
    func execute(_ sql: String) throws -> PostgresRows {
        try consume(PQexec(conn, sql), context: "statement")
    }

    /// Runs one statement with parameters, prepared on first use on this connection.
    @discardableResult
    func query(_ sql: String, _ parameters: [PostgresValue]) throws -> PostgresRows {
        let name: String
        if let known = prepared[sql] {
            name = known
        } else {
            name = "lk\(prepared.count)"
            _ = try consume(PQprepare(conn, name, sql, Int32(parameters.count), nil), context: "prepare")
            prepared[sql] = name
        }
        let texts = parameters.map(\.parameter)
        let result = withOptionalCStrings(texts) { pointers in
            PQexecPrepared(conn, name, Int32(texts.count), pointers, nil, nil, 0)
        }
        return try consume(result, context: "query")
    }

    /// Reads what arrived on the socket and returns the notifications received (channel, payload).
    func notifications() throws -> [(channel: String, payload: String)] {
        guard PQconsumeInput(conn) == 1 else { throw PostgresError(sqlState: "", context: "listen") }
        var received: [(String, String)] = []
        while let notice = PQnotifies(conn) {
            received.append((String(cString: notice.pointee.relname), String(cString: notice.pointee.extra)))
            PQfreemem(notice)
        }
        return received
    }

    /// Turns a result into rows, or a `PostgresError` named by its SQLSTATE; always clears it.
    private func consume(_ result: OpaquePointer?, context: String) throws -> PostgresRows {
        guard let result else { throw PostgresError(sqlState: "", context: context) }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
            return PostgresRows(columns: [], rows: [])
        case PGRES_TUPLES_OK:
            return rows(of: result)
        default:
            let state = PQresultErrorField(result, CLibpq_diag_sqlstate()).map { String(cString: $0) } ?? ""
            // A fatal error with no SQLSTATE, or on a dead connection, is a lost connection.
            throw PostgresError(sqlState: isUp ? state : "", context: context)
        }
    }

    private func rows(of result: OpaquePointer) -> PostgresRows {
        let fieldCount = PQnfields(result)
        let rowCount = PQntuples(result)
        var columns: [String] = []
        var types: [UInt32] = []
        for field in 0..<fieldCount {
            columns.append(PQfname(result, field).map { String(cString: $0) } ?? "")
            types.append(UInt32(PQftype(result, field)))
        }
        var rows: [[PostgresValue]] = []
        rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            var values: [PostgresValue] = []
            values.reserveCapacity(Int(fieldCount))
            for field in 0..<fieldCount {
                if PQgetisnull(result, row, field) == 1 {
                    values.append(.null)
                } else if let text = PQgetvalue(result, row, field) {
                    let value = PostgresValue.field(text, length: Int(PQgetlength(result, row, field)), type: types[Int(field)])
                    values.append(value ?? .null)
                } else {
                    values.append(.null)
                }
            }
            rows.append(values)
        }
        return PostgresRows(columns: columns, rows: rows)
    }
}

/// Calls `body` with C strings for `strings`, valid for the call only.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    withOptionalCStrings(strings.map { Optional($0) } + [nil], body)
}

private func withOptionalCStrings<R>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies: [UnsafeMutablePointer<CChar>?] = strings.map { $0.flatMap { strdup($0) } }
    defer { for copy in copies { free(copy) } }
    let pointers = copies.map { $0.map { UnsafePointer($0) } }
    return pointers.withUnsafeBufferPointer { buffer in
        // An empty buffer has no base address: hand libpq a pointer to a NULL instead.
        if let base = buffer.baseAddress { return body(base) }
        var none: UnsafePointer<CChar>? = nil
        return withUnsafePointer(to: &none) { body($0) }
    }
}
