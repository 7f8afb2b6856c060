import GRDB
import LatchkeyCore

/// Maps any `StoredRecord` onto its table through GRDB's Codable support: the record's
/// properties are the columns, `id` the primary key.
struct Row<R: StoredRecord>: Codable, FetchableRecord, PersistableRecord {
    static var databaseTableName: String { R.table }
    var record: R

    init(_ record: R) { self.record = record }

    init(from decoder: Decoder) throws { record = try R(from: decoder) }
    func encode(to encoder: Encoder) throws { try record.encode(to: encoder) }
}
