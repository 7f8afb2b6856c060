import Foundation
import GRDB
import LatchkeyCore
import LatchkeyRecords

/// SQLite's bindings for the shared `RecordEncoder` (LatchkeyRecords/RecordEncoder.swift):
/// booleans as integers, byte arrays as BLOBs.
enum SQLiteColumnValues: RecordColumnValues {
    static var null: DatabaseValue { .null }
    static func integer(_ value: Int64) -> DatabaseValue { value.databaseValue }
    static func real(_ value: Double) -> DatabaseValue? { value.databaseValue }
    static func text(_ value: String) -> DatabaseValue { value.databaseValue }
    static func bool(_ value: Bool) -> DatabaseValue { value.databaseValue }
    static func bytes(_ value: [UInt8]) -> DatabaseValue { Data(value).databaseValue }
}

/// Encodes a record into its SQLite columns and values.
typealias SQLiteRecordEncoder = RecordEncoder<SQLiteColumnValues>
