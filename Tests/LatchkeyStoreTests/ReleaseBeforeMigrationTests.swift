import Foundation
import Testing

@testable import LatchkeyPostgres

/// PostgreSQL's v16 marks what only the release before this one wrote (it stood at v6).
///
/// That is its simulated phones' secret items, kept in clear, and its passkeys, registered under an RP id it did not keep. A
/// database at a later migration, or a new one, keeps every row as it is. The SQLite store's v16 is tested from a store that
/// release wrote, in `Tests/system/test_upgrade.py`.
@Suite(.enabled(if: StoreUnderTest.postgresURI != nil, "LATCHKEY_TEST_POSTGRES is not set (make test starts a cluster and sets it)"))
struct ReleaseBeforeMigrationTests {
    /// The items' names and the passkeys' RP ids, after a database at the first `migrations` of this version is migrated to the end.
    ///
    /// The database is one of its own, with one phone's two items and two passkeys (one registered, with an AAGUID; one imported,
    /// without) written as the release before wrote them.
    private func migrate(from migrations: Int) throws -> (items: [String], rpIds: [String?]) {
        let uri = try #require(StoreUnderTest.postgresURI)
        let name = "lk_release_\(UUID().uuidString.prefix(8).lowercased())"
        let admin = try PostgresConnection(conninfo: uri)
        try admin.execute("CREATE DATABASE \(name)")
        defer { _ = try? admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
        let connection = try PostgresConnection(conninfo: uri.replacingOccurrences(of: "/postgres?", with: "/\(name)?"))
        try connection.execute(
            "CREATE TABLE latchkey_migration (name TEXT PRIMARY KEY NOT NULL, appliedAt TIMESTAMPTZ NOT NULL DEFAULT now())")
        for migration in PostgresMigrations.all.prefix(migrations) {
            try connection.execute(migration.sql)
            try connection.query("INSERT INTO latchkey_migration (name) VALUES ($1)", [.text(migration.name)])
        }
        try connection.execute(
            """
            INSERT INTO "device_item" ("id", "deviceId", "name", "value", "thisDeviceOnly") VALUES
                ('phone/activation.possessionKey', 'phone', 'activation.possessionKey', '\\x01', true),
                ('phone/activation.registrationId', 'phone', 'activation.registrationId', '\\x02', false);
            INSERT INTO "passkey" ("id", "userId", "friendlyName", "createdAt", "aaguid") VALUES
                ('registered', 'alice', 'Passkey', 1, '00000000-0000-0000-0000-000000000000'), ('imported', 'alice', 'Key', 2, NULL)
            """)
        try PostgresMigrations.migrate(connection)
        let items = try connection.execute(#"SELECT "name" FROM "device_item" ORDER BY "id""#).rows.map { row -> String in
            if case .text(let name)? = row.first { return name }
            return ""
        }
        let rpIds = try connection.execute(#"SELECT "rpId" FROM "passkey" ORDER BY "createdAt""#).rows.map { row -> String? in
            if case .text(let rpId)? = row.first { return rpId }
            return nil
        }
        return (items, rpIds)
    }

    @Test func aDatabaseTheReleaseBeforeWroteHasItsClearItemsAndUnknownRpIdsMarked() throws {
        let migrated = try migrate(from: 6)
        #expect(migrated.items == ["unsealed/activation.possessionKey", "activation.registrationId"])
        #expect(migrated.rpIds == [nil, "localhost"])
    }

    @Test func aDatabaseALaterVersionWroteKeepsItsRows() throws {
        let migrated = try migrate(from: PostgresMigrations.all.count - 1)
        #expect(migrated.items == ["activation.possessionKey", "activation.registrationId"])
        #expect(migrated.rpIds == [nil, nil])
    }
}
