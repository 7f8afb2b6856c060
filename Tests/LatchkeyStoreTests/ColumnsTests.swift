import GRDB
import Testing

@testable import LatchkeyCore
@testable import LatchkeySimulator
@testable import LatchkeyStore

/// A record's `Columns` names columns its table has (a filter on a misspelt column would fail only
/// when that lookup runs).
@Suite struct ColumnsTests {
    private static let named: [(table: String, columns: [String])] = [
        (AccountRecoveryRecord.table, AccountRecoveryRecord.Columns.allCases.map(\.rawValue)),
        (ActivationCodeRecord.table, ActivationCodeRecord.Columns.allCases.map(\.rawValue)),
        (ActivationRecord.table, ActivationRecord.Columns.allCases.map(\.rawValue)),
        (AuditRecord.table, AuditRecord.Columns.allCases.map(\.rawValue)),
        (ChallengeRecord.table, ChallengeRecord.Columns.allCases.map(\.rawValue)),
        (OnboardingProcessRecord.table, OnboardingProcessRecord.Columns.allCases.map(\.rawValue)),
        (PasskeyRecord.table, PasskeyRecord.Columns.allCases.map(\.rawValue)),
        (PushedAuthenticationRecord.table, PushedAuthenticationRecord.Columns.allCases.map(\.rawValue)),
        (RateEventRecord.table, RateEventRecord.Columns.allCases.map(\.rawValue)),
        (RegistrationRecord.table, RegistrationRecord.Columns.allCases.map(\.rawValue)),
        (ResetCodeRecord.table, ResetCodeRecord.Columns.allCases.map(\.rawValue)),
        (TokenRecord.table, TokenRecord.Columns.allCases.map(\.rawValue)),
        (UserRecord.table, UserRecord.Columns.allCases.map(\.rawValue)),
        (UserSessionRecord.table, UserSessionRecord.Columns.allCases.map(\.rawValue)),
        (DeviceBackupItemRecord.table, DeviceBackupItemRecord.Columns.allCases.map(\.rawValue)),
        (DeviceItemRecord.table, DeviceItemRecord.Columns.allCases.map(\.rawValue)),
    ]

    @Test func everyColumnARecordNamesIsInItsTable() throws {
        let queue = try DatabaseQueue()
        try Migrations.migrator.migrate(queue)
        try queue.read { db in
            for (table, columns) in Self.named {
                let actual = Set(try db.columns(in: table).map(\.name))
                for column in columns { #expect(actual.contains(column), "\(table).\(column)") }
            }
        }
    }
}
