import LatchkeyCore
import LatchkeyRecords

/// PostgreSQL's bindings for the shared `RecordEncoder` (LatchkeyRecords/RecordEncoder.swift):
/// booleans as booleans, byte arrays as bytea; the tables have no real columns, so a real is
/// refused.
enum PostgresColumnValues: RecordColumnValues {
    static var null: PostgresValue { .null }
    static func integer(_ value: Int64) -> PostgresValue { .int(value) }
    static func real(_ value: Double) -> PostgresValue? { nil }
    static func text(_ value: String) -> PostgresValue { .text(value) }
    static func bool(_ value: Bool) -> PostgresValue { .bool(value) }
    static func bytes(_ value: [UInt8]) -> PostgresValue { .bytes(value) }
}

/// Encodes a record into its PostgreSQL columns and values.
typealias PostgresRecordEncoder = RecordEncoder<PostgresColumnValues>
