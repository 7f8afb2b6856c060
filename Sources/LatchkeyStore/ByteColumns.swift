import Foundation
import GRDB

/// Byte arrays (keys, salts, challenges, hashes) are BLOB columns. Without this conformance
/// GRDB's Codable support would store a `[UInt8]` as JSON text ("[4,237,…]"), three to four
/// times the size and decoded through `JSONDecoder` on every read. Migration v2 converts the
/// text that earlier versions wrote.
extension Array: @retroactive SQLExpressible, @retroactive StatementBinding, @retroactive DatabaseValueConvertible
where Element == UInt8 {
    public var databaseValue: DatabaseValue { Data(self).databaseValue }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> [UInt8]? {
        guard case .blob(let data) = dbValue.storage else { return nil }
        return [UInt8](data)
    }
}
