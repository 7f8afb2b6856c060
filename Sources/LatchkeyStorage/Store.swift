import LatchkeyContract

/// A row of one table: a value whose stored properties are the table's columns (scalars only:
/// text, integers, booleans, bytes) and whose `id` is the primary key, coded per type.
public protocol StoredRecord: Sendable {
    /// The table's name.
    static var table: String { get }
    /// The table's columns in table order: what a store reads and writes, in the order
    /// `init(row:)` reads the values and `encode(into:)` writes them.
    static var columns: [String] { get }
    /// The primary key.
    var id: String { get }
    /// The record of one row, its values in `columns`' order.
    /// - Throws: `RowValueMismatch` for a value of another kind than its property's.
    init(row: inout RowReader) throws
    /// Writes the record's values in `columns`' order.
    func encode(into row: inout RowWriter)
}

/// A row whose `seq` the store assigns when the transaction commits, in commit order over the
/// whole store (a reader that sees number n sees every smaller number that will ever exist).
public protocol NumberedRecord: StoredRecord {
    /// The number (any value when inserted: the store sets it).
    var seq: Int64 { get }
}

/// A column's value: what a filter compares, a row holds and a record writes.
public enum StoreValue: Sendable, Hashable {
    case text(String)
    case int(Int64)
    case bool(Bool)
    case bytes([UInt8])
    case null
}

/// A condition on one column.
public struct StoreFilter: Sendable {
    public enum Comparison: String, Sendable {
        case equal = "="
        case less = "<"
        case lessOrEqual = "<="
        case greaterOrEqual = ">="
        case notEqual = "<>"
        /// The column's text begins with the value's (the same in every collation, unlike a range).
        case startsWith = "starts with"
    }
    public var column: String
    public var comparison: Comparison
    public var value: StoreValue

    /// A condition on a column a record's `Columns` names.
    public init<Column: RawRepresentable>(_ column: Column, _ comparison: Comparison = .equal, _ value: StoreValue)
    where Column.RawValue == String {
        self.init(named: column.rawValue, comparison, value)
    }

    /// A condition on a column named by a query kept as a value (`KeyedQuery`).
    public init(named column: String, _ comparison: Comparison, _ value: StoreValue) {
        self.column = column
        self.comparison = comparison
        self.value = value
    }

    /// `column = value`.
    public static func equals<Column: RawRepresentable>(_ column: Column, _ value: String) -> StoreFilter where Column.RawValue == String {
        StoreFilter(column, .equal, .text(value))
    }
    public static func equals<Column: RawRepresentable>(_ column: Column, _ value: Int64) -> StoreFilter where Column.RawValue == String {
        StoreFilter(column, .equal, .int(value))
    }
    public static func equals<Column: RawRepresentable>(_ column: Column, _ value: Bool) -> StoreFilter where Column.RawValue == String {
        StoreFilter(column, .equal, .bool(value))
    }
    public static func equals<Column: RawRepresentable>(_ column: Column, _ value: [UInt8]) -> StoreFilter where Column.RawValue == String {
        StoreFilter(column, .equal, .bytes(value))
    }
}

/// What a transaction can do.
///
/// Every method may throw a store failure (never a `DomainError`).
public protocol StoreTransaction {
    func fetch<R: StoredRecord>(_ type: R.Type, id: String) throws -> R?
    /// Rows matching every filter, oldest first (or newest first), at most `limit`.
    func fetchAll<R: StoredRecord>(_ type: R.Type, where filters: [StoreFilter], newestFirst: Bool, limit: Int?) throws -> [R]
    func count<R: StoredRecord>(_ type: R.Type, where filters: [StoreFilter]) throws -> Int
    /// The smallest value of the integer column `column` in the rows matching every filter (nil: no
    /// row, or only nulls): one indexed read where an index leads with the filters' columns, then `column`.
    func minimum<R: StoredRecord>(_ type: R.Type, _ column: String, where filters: [StoreFilter]) throws -> Int64?
    /// Inserts or replaces the row with the record's id.
    func save<R: StoredRecord>(_ record: R) throws
    func delete<R: StoredRecord>(_ type: R.Type, id: String) throws
    func deleteAll<R: StoredRecord>(_ type: R.Type, where filters: [StoreFilter]) throws
    /// States reads this transaction makes (see `StoreRead`): a store with round trips sends them
    /// together with its next one, and answers the reads from what they returned. Stores without
    /// round trips ignore it, and never build the list.
    func willRead(_ reads: @autoclosure () -> [StoreRead])
    /// Whether no row matches `query`, for a body that goes on only when none does (a new code, a
    /// new credential id). A store with round trips may answer "none" without asking and check it
    /// with COMMIT, where the rows the body wrote after this call do not count: when a row is
    /// there, nothing commits and the body runs again, that time asking first.
    func noneMatch<R: StoredRecord>(_ query: StoreQuery<R>) throws -> Bool
    /// Reads `query`'s rows and decodes them, for work that must cost the same whatever a read before it found (an identifier that
    /// names no one reads the decoy user in its place, security property 11); the body never sees them. A store with round trips
    /// sends it with COMMIT, so the body's reads and round trips stay as they are either way.
    func readAtCommit<R: StoredRecord>(_ query: StoreQuery<R>) throws
    /// Inserts a new row whose `seq` the store numbers in commit order (see `NumberedRecord`); the
    /// body does not learn the number.
    func insertNumbered<R: NumberedRecord>(_ record: R) throws
}

extension StoreTransaction {
    /// A store without round trips never builds the list.
    public func willRead(_ reads: @autoclosure () -> [StoreRead]) {}

    public func noneMatch<R: StoredRecord>(_ query: StoreQuery<R>) throws -> Bool { try fetchAll(query).isEmpty }

    /// A store without round trips reads it now.
    public func readAtCommit<R: StoredRecord>(_ query: StoreQuery<R>) throws { _ = try fetchAll(query) }

    public func fetchAll<R: StoredRecord>(_ type: R.Type, where filters: [StoreFilter] = []) throws -> [R] {
        try fetchAll(type, where: filters, newestFirst: false, limit: nil)
    }

    public func first<R: StoredRecord>(_ type: R.Type, where filters: [StoreFilter]) throws -> R? {
        try fetchAll(type, where: filters, newestFirst: false, limit: 1).first
    }

    /// The smallest value of a column a record's `Columns` names (see `minimum(_:_:where:)`).
    public func minimum<R: StoredRecord, Column: RawRepresentable>(_ type: R.Type, _ column: Column, where filters: [StoreFilter]) throws -> Int64?
    where Column.RawValue == String {
        try minimum(type, column.rawValue, where: filters)
    }
}

/// The kinds of store a process can run on (what `server/info` reports).
public enum StoreKind: String, Sendable, CaseIterable {
    case sqlite, postgresql, memory
}

/// The persistent store.
///
/// `write` runs `body` in one transaction that reads what it writes consistently (a write lock, or a
/// serializable transaction the store may run again): what the body returns is committed; an error it
/// throws rolls everything back and is rethrown.
public protocol Store: AnyObject, Sendable {
    func write<T>(_ body: (StoreTransaction) throws -> T) throws -> T
    func read<T>(_ body: (StoreTransaction) throws -> T) throws -> T
    /// Which kind of store this is.
    var kind: StoreKind { get }
    /// The store's secret key for keyed hashes and sealing: a file store's from the key file made with the store (never made
    /// again for a store with content), a PostgreSQL store's from `--key-file`, an in-memory store's made with `make` on first use.
    /// It is kept apart from the tables, so a copy of the database alone cannot be used to test guesses of one-time codes offline.
    func secretKey(make: () -> [UInt8]) throws -> [UInt8]
    /// When the store's key is not yet known to be the deployment's (made just now, or proposed by a process that did not live to
    /// see the store accept it), what keeps or drops it on the store's answer; nil when the key was found in place.
    ///
    /// No default: a store that wraps another forwards it, or the key would be neither kept nor dropped.
    var unconfirmedKey: UnconfirmedKey? { get }
}

/// A store key not yet known to be the deployment's (`Store.unconfirmedKey`): the store's first use accepts it, and it is kept where
/// every process finds it, or refuses it, and it is dropped so that no process takes it for the deployment's.
public struct UnconfirmedKey: Sendable {
    /// Keeps the key where every process finds it (throwing why it cannot).
    public let keep: @Sendable () throws -> Void
    /// Drops the key (answering whether its file was removed).
    public let drop: @Sendable () -> Bool

    public init(keep: @escaping @Sendable () throws -> Void, drop: @escaping @Sendable () -> Bool) {
        self.keep = keep
        self.drop = drop
    }
}

/// A store a newer Latchkey has migrated: what it keeps may mean what this version cannot read, and what this version would write,
/// what that one cannot, so it is not used (nor migrated).
public struct StoreNewerThanThisVersion: Error, CustomStringConvertible, Sendable {
    /// The migrations the store has applied that this version does not know, in order of name.
    public let unknownMigrations: [String]

    public init(unknownMigrations: [String]) {
        self.unknownMigrations = unknownMigrations
    }

    public var description: String {
        // Names the store holds, quoted and escaped: whoever can write the store chooses them.
        "the store was written by a newer latchkey (its migrations \(unknownMigrations.map(\.debugDescription).joined(separator: ", ")) "
            + "are unknown to this version): run that version or a later one"
    }
}

/// The store could not be reached, or could not commit in time; nothing was written.
public struct StoreUnavailable: Error, Sendable {
    public var retryAfterSeconds: Int64
    /// What went wrong, for logs (never a value from a row).
    public var reason: String

    public init(retryAfterSeconds: Int64, reason: String) {
        self.retryAfterSeconds = retryAfterSeconds
        self.reason = reason
    }
}
