/// A read a transaction body is about to make, announced ahead with `StoreTransaction.readAhead`
/// so a store with round trips can send reads that do not depend on each other together.
///
/// Announcing changes no answer: the body still makes each read, and gets what it would have got
/// without the announcement (its own writes included).
public struct StoreRead: Sendable {
    public enum Shape: Sendable {
        /// The row with this id.
        case row(id: String)
        /// The rows matching every filter (`StoreTransaction.fetchAll`).
        case rows(filters: [StoreFilter], newestFirst: Bool, limit: Int?)
        /// The row whose id is `column` of the row `ownerId` of `ownerTable` (a read that waits for
        /// another, asked in one go).
        case referenced(ownerTable: String, column: String, ownerId: String)
    }

    public let table: String
    public let shape: Shape

    /// The row of `type` with this id.
    public static func row<R: StoredRecord>(_ type: R.Type, id: String) -> StoreRead {
        StoreRead(table: R.table, shape: .row(id: id))
    }

    /// The rows `query` reads.
    public static func rows<R: StoredRecord>(_ query: StoreQuery<R>) -> StoreRead {
        StoreRead(table: R.table, shape: .rows(filters: query.filters, newestFirst: query.newestFirst, limit: query.limit))
    }

    /// The row of `type` whose id is the `column` of `owner`'s row `id`: a registration's application.
    public static func row<R: StoredRecord, S: StoredRecord, Column: RawRepresentable>(
        _ type: R.Type, referencedBy column: Column, of owner: S.Type, id: String
    ) -> StoreRead where Column.RawValue == String {
        StoreRead(table: R.table, shape: .referenced(ownerTable: S.table, column: column.rawValue, ownerId: id))
    }
}

/// A `fetchAll` kept as a value, so the read announced ahead and the read made are the same.
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

extension StoreTransaction {
    /// The rows `query` reads.
    public func fetchAll<R: StoredRecord>(_ query: StoreQuery<R>) throws -> [R] {
        try fetchAll(R.self, where: query.filters, newestFirst: query.newestFirst, limit: query.limit)
    }
}
