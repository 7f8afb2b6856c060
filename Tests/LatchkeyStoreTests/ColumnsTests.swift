import GRDB
import Testing

@testable import LatchkeyCore
@testable import LatchkeySimulator
@testable import LatchkeyStore

/// Every record type a store keeps.
let allRecordTypes: [any StoredRecord.Type] = [
    ServerConfigRecord.self, AuditRecord.self, RateEventRecord.self, ApplicationRecord.self, UserRecord.self, PasskeyRecord.self,
    PasskeyCeremonyRecord.self, ActivationCodeRecord.self, RegistrationRecord.self, PushedAuthenticationRecord.self, TokenRecord.self,
    OnboardingProcessRecord.self, AccountRecoveryRecord.self, UserSessionRecord.self, ResetCodeRecord.self, ActivationRecord.self,
    ChallengeRecord.self, OperationTemplateRecord.self, OperationRecord.self, ApplicationKeyRecord.self, RegistrationKeyRecord.self,
    OperationQRRecord.self, CallbackRecord.self, CallbackEventRecord.self, CallbackDeliveryRecord.self, DeviceRecord.self,
    DeviceItemRecord.self, DeviceBackupRecord.self, DeviceBackupItemRecord.self, StoreKeyRecord.self,
]

/// A record's `columns` (its `Columns`, which filters name) are its table's columns in table order,
/// and its stored properties in the same order: what `init(row:)` and `encode(into:)` rely on.
@Suite struct ColumnsTests {
    @Test func everyRecordListsItsTablesColumnsInTableOrder() throws {
        let queue = try DatabaseQueue()
        try Migrations.migrator.migrate(queue)
        try queue.read { db in
            for type in allRecordTypes {
                let columns = try db.columns(in: type.table).map(\.name)
                #expect(columns == type.columns, "\(type.table)")
            }
        }
    }

    @Test func everyRecordListsItsPropertiesInOrder() throws {
        for type in allRecordTypes { try Self.checkProperties(type) }
    }

    private static func checkProperties<R: StoredRecord>(_ type: R.Type) throws {
        let record = try RowSamples.record(R.self, nulls: false)
        #expect(Mirror(reflecting: record).children.map(\.label) == R.columns, "\(R.table)")
    }
}
