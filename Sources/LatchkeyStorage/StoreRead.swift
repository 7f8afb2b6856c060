/// The ids a read finds rows by.
///
/// One the operation holds, or the ids rows of other tables hold, looked up in the same statement (a
/// registration's application, a ceremony's user, the registration a device keeps in its keychain).
/// A read by a key reads for each id it finds.
public indirect enum StoreKey: Sendable {
    /// An id the operation holds.
    case value(String)
    /// The `column` of each row of `table` whose id `rows` finds (none when there is no such row,
    /// or its column is null); `bytesAsText`: a byte column, read as the text its bytes spell.
    case column(table: String, column: String, bytesAsText: Bool, rows: StoreKey)
    /// The ids of the rows of `table` matching every filter, and when `keyed` names a column,
    /// whose column holds an id that key finds.
    case ids(table: String, filters: [StoreFilter], keyed: (column: String, key: StoreKey)?)
    /// The ids of the first `limit` rows of `table` matching every filter, in insertion order (or
    /// newest first): those a `fetchAll` with that limit reads.
    case first(table: String, filters: [StoreFilter], newestFirst: Bool, limit: Int)
    /// The ids either key finds.
    case either(StoreKey, StoreKey)

    /// The `column` of `type`'s rows whose id `rows` finds (a registration's application:
    /// `.column(RegistrationRecord.Columns.applicationId, of: RegistrationRecord.self, .value(id))`).
    public static func column<R: StoredRecord, Column: RawRepresentable>(_ column: Column, of type: R.Type, _ rows: StoreKey) -> StoreKey
    where Column.RawValue == String {
        .column(table: R.table, column: column.rawValue, bytesAsText: false, rows: rows)
    }

    /// The text a byte column of `type`'s rows holds (an id kept as bytes, as a keychain item keeps one).
    public static func text<R: StoredRecord, Column: RawRepresentable>(ofBytes column: Column, of type: R.Type, _ rows: StoreKey) -> StoreKey
    where Column.RawValue == String {
        .column(table: R.table, column: column.rawValue, bytesAsText: true, rows: rows)
    }

    /// The ids of `type`'s rows matching every filter.
    public static func ids<R: StoredRecord>(of type: R.Type, where filters: [StoreFilter]) -> StoreKey {
        .ids(table: R.table, filters: filters, keyed: nil)
    }

    /// The ids of the rows `query` reads (its order and limit kept).
    public static func ids<R: StoredRecord>(of query: StoreQuery<R>) -> StoreKey {
        guard let limit = query.limit else { return .ids(table: R.table, filters: query.filters, keyed: nil) }
        return .first(table: R.table, filters: query.filters, newestFirst: query.newestFirst, limit: limit)
    }

    /// The ids of the rows `query` reads for the ids `key` finds.
    public static func ids<R: StoredRecord>(of query: KeyedQuery<R>, _ key: StoreKey) -> StoreKey {
        .ids(table: R.table, filters: query.rest.filters, keyed: (query.column, key))
    }

    /// The tables a store reads to find the ids (none for a value).
    public var tables: [String] {
        switch self {
        case .value: return []
        case .column(let table, _, _, let rows): return [table] + rows.tables
        case .ids(let table, _, let keyed): return [table] + (keyed?.key.tables ?? [])
        case .first(let table, _, _, _): return [table]
        case .either(let one, let other): return one.tables + other.tables
        }
    }
}

/// A read a transaction makes, stated at its start with `StoreTransaction.willRead` so a store with
/// round trips can send the reads that depend only on the operation's input together, the reads
/// through another row's column included.
///
/// Stating a read changes no answer: the body still makes each read, and gets what it would have got
/// without it (its own writes included). A read stated and not made costs a statement, not a round trip.
public struct StoreRead: Sendable {
    public enum Shape: Sendable {
        /// The row whose id is `id`.
        case row(id: StoreKey)
        /// The rows matching every filter (`StoreTransaction.fetchAll`), and when `keyed` names a column, whose
        /// column is that key (the query's first filter, compared with the id the key finds).
        case rows(keyed: (column: String, key: StoreKey)?, filters: [StoreFilter], newestFirst: Bool, limit: Int?)
    }

    public let table: String
    /// The record's columns (`StoredRecord.columns`): what the read selects.
    public let columns: [String]
    public let shape: Shape

    /// The row of `type` with this id.
    public static func row<R: StoredRecord>(_ type: R.Type, id: String) -> StoreRead {
        StoreRead(table: R.table, columns: R.columns, shape: .row(id: .value(id)))
    }

    /// The row of `type` whose id `key` finds: `.row(ApplicationRecord.self, id: .column(RegistrationRecord.Columns.applicationId, …))`.
    public static func row<R: StoredRecord>(_ type: R.Type, id key: StoreKey) -> StoreRead {
        StoreRead(table: R.table, columns: R.columns, shape: .row(id: key))
    }

    /// The rows `query` reads.
    public static func rows<R: StoredRecord>(_ query: StoreQuery<R>) -> StoreRead {
        StoreRead(
            table: R.table, columns: R.columns, shape: .rows(keyed: nil, filters: query.filters, newestFirst: query.newestFirst, limit: query.limit))
    }

    /// The rows `query` reads for the id `key` finds.
    public static func rows<R: StoredRecord>(_ query: KeyedQuery<R>, _ key: StoreKey) -> StoreRead {
        if case .value(let id) = key { return rows(query.query(id)) }
        let rest = query.rest
        return StoreRead(
            table: R.table, columns: R.columns,
            shape: .rows(keyed: (query.column, key), filters: rest.filters, newestFirst: rest.newestFirst, limit: rest.limit))
    }
}

/// A `fetchAll` kept as a value, so the read stated and the read made are the same.
public struct StoreQuery<R: StoredRecord>: Sendable {
    public var filters: [StoreFilter]
    public var newestFirst: Bool
    public var limit: Int?

    public init(where filters: [StoreFilter], newestFirst: Bool = false, limit: Int? = nil) {
        self.filters = filters
        self.newestFirst = newestFirst
        self.limit = limit
    }
}

/// A `fetchAll` of the rows whose `column` is an id, kept as a value: the read made for an id
/// (`query`), and the read stated ahead for an id another row holds (`StoreRead.rows(_:_:)`).
public struct KeyedQuery<R: StoredRecord>: Sendable {
    public var column: String
    /// The rest of the query: more filters, the order, the limit.
    public var rest: StoreQuery<R>

    public init<Column: RawRepresentable>(_ column: Column, and filters: [StoreFilter] = [], newestFirst: Bool = false, limit: Int? = nil)
    where Column.RawValue == String {
        self.column = column.rawValue
        rest = StoreQuery(where: filters, newestFirst: newestFirst, limit: limit)
    }

    /// The query for `id`: `column = id` first, then the rest's filters.
    public func query(_ id: String) -> StoreQuery<R> {
        StoreQuery(where: [StoreFilter(named: column, .equal, .text(id))] + rest.filters, newestFirst: rest.newestFirst, limit: rest.limit)
    }
}

extension StoreTransaction {
    /// The rows `query` reads.
    public func fetchAll<R: StoredRecord>(_ query: StoreQuery<R>) throws -> [R] {
        try fetchAll(R.self, where: query.filters, newestFirst: query.newestFirst, limit: query.limit)
    }

    /// The rows `query` reads for `id`.
    public func fetchAll<R: StoredRecord>(_ query: KeyedQuery<R>, _ id: String) throws -> [R] {
        try fetchAll(query.query(id))
    }
}
