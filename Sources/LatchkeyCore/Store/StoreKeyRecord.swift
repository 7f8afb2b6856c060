import LatchkeyStorage

/// Which key a store was first used with: an HMAC under the key of a fixed text, never the key (`Latchkey.checkStoreKey`).
struct StoreKeyRecord: StoredRecord {
    static let table = "store_key"
    /// The one row's id.
    static let storeId = "store"
    var id: String
    /// HMAC-SHA256 of `Latchkey.storeKeyCheckText` under the store's key, as lowercase hex.
    var keyCheck: String
    var createdAt: Int64
}

extension StoreKeyRecord {
    enum Columns: String, CaseIterable { case id, keyCheck, createdAt }
    static let columns = Columns.allCases.map(\.rawValue)

    init(row: inout RowReader) throws {
        try self.init(id: row.text(), keyCheck: row.text(), createdAt: row.integer())
    }

    func encode(into row: inout RowWriter) { row.put(id, keyCheck, createdAt) }
}
