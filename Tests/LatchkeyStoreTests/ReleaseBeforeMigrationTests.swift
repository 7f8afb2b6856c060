import Foundation
import GRDB
import Testing

@testable import LatchkeyPostgres
@testable import LatchkeySimulator
@testable import LatchkeyStore

/// PostgreSQL's v16 marks what only the release before this one wrote (it stood at v6).
///
/// That is its simulated phones' secret items, kept in clear, and its passkeys, registered under an RP id it did not keep. A
/// database at a later migration, or a new one, keeps every row as it is. The SQLite store's v16 is tested from a store that
/// release wrote, in `Tests/system/test_upgrade.py`.
@Suite(.enabled(if: StoreUnderTest.postgresURI != nil, "LATCHKEY_TEST_POSTGRES is not set (make test starts a cluster and sets it)"))
struct ReleaseBeforeMigrationTests {
    /// The items' names and the passkeys' RP ids, after a database at migration `last` of this version, written by a version
    /// without v6a, is migrated to the end.
    ///
    /// The database is one of its own, with one phone's two items and two passkeys (one registered, with an AAGUID; one imported,
    /// without) written as the release before wrote them.
    private func migrate(from last: String) throws -> (items: [String], rpIds: [String?]) {
        let names = PostgresMigrations.all.map(\.name)
        let migrations = try #require(names.firstIndex(of: last)) + 1
        let uri = try #require(StoreUnderTest.postgresURI)
        let name = "lk_release_\(UUID().uuidString.prefix(8).lowercased())"
        let admin = try PostgresConnection(conninfo: uri)
        try admin.execute("CREATE DATABASE \(name)")
        defer { _ = try? admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
        let connection = try PostgresConnection(conninfo: uri.replacingOccurrences(of: "/postgres?", with: "/\(name)?"))
        try connection.execute(
            "CREATE TABLE latchkey_migration (name TEXT PRIMARY KEY NOT NULL, appliedAt TIMESTAMPTZ NOT NULL DEFAULT now())")
        for migration in PostgresMigrations.all.prefix(migrations) where migration.name != "v6a-release-before" {
            try connection.execute(migration.sql)
            try connection.query("INSERT INTO latchkey_migration (name) VALUES ($1)", [.text(migration.name)])
        }
        // A later version keeps each passkey's RP id (v7 on).
        let given =
            names.prefix(migrations).contains("v7-passkey-bindings") ? (#", "rpId""#, (#", 'bank.example'"#, #", 'localhost'"#)) : ("", ("", ""))
        try connection.execute(
            """
            INSERT INTO "device_item" ("id", "deviceId", "name", "value", "thisDeviceOnly") VALUES
                ('phone/activation.possessionKey', 'phone', 'activation.possessionKey', '\\x01', true),
                ('phone/activation.registrationId', 'phone', 'activation.registrationId', '\\x02', false);
            INSERT INTO "passkey" ("id", "userId", "friendlyName", "createdAt", "aaguid"\(given.0)) VALUES
                ('registered', 'alice', 'Passkey', 1, '00000000-0000-0000-0000-000000000000'\(given.1.0)),
                ('imported', 'alice', 'Key', 2, NULL\(given.1.1))
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
        let migrated = try migrate(from: "v6-commit-marker")
        #expect(migrated.items == ["unsealed/activation.possessionKey", "activation.registrationId"])
        #expect(migrated.rpIds == [nil, "localhost"])
    }

    @Test(arguments: ["v7-passkey-bindings", "v15-attempt-milliseconds"]) func aDatabaseALaterVersionWroteKeepsItsRows(_ last: String) throws {
        let migrated = try migrate(from: last)
        #expect(migrated.items == ["activation.possessionKey", "activation.registrationId"])
        #expect(migrated.rpIds == ["bank.example", "localhost"])
    }
}

/// SQLite's v16 likewise, decided by v5a in the store, so an upgrade cut off after v6 still marks; a store at a later migration
/// (v5a run there with v6 applied, noting nothing) keeps its rows.
@Suite struct ReleaseBeforeSQLiteMigrationTests {
    /// The items' names and the passkeys' RP ids once the store opens, from a store at migration `upTo` with the rows that
    /// release wrote, `prepare` run on it first.
    private func open(at upTo: String, prepare: (Database) throws -> Void = { _ in }) throws -> (items: [String], rpIds: [String?]) {
        let (directory, path) = temporaryStorePath("release-before")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        _ = try KeyFile.readOrCreate(at: path + ".key") { [UInt8](repeating: 7, count: KeyFile.length) }
        let queue = try DatabaseQueue(path: path)
        try Migrations.migrator.migrate(queue, upTo: upTo)
        let rpId = upTo == "v5-webauthn" ? ("", ("", "")) : (", rpId", (", 'bank.example'", ", 'localhost'"))
        try queue.write { db in
            try prepare(db)
            try db.execute(
                sql: """
                    INSERT INTO device_item (id, deviceId, name, value, thisDeviceOnly) VALUES
                        ('phone/activation.possessionKey', 'phone', 'activation.possessionKey', X'01', 1),
                        ('phone/activation.registrationId', 'phone', 'activation.registrationId', X'02', 0);
                    INSERT INTO passkey (id, userId, friendlyName, createdAt, aaguid\(rpId.0)) VALUES
                        ('registered', 'alice', 'Passkey', 1, '00000000-0000-0000-0000-000000000000'\(rpId.1.0)),
                        ('imported', 'alice', 'Key', 2, NULL\(rpId.1.1))
                    """)
        }
        try queue.close()
        _ = try SQLiteStore.file(at: path)
        let opened = try DatabaseQueue(path: path)
        return try opened.read { db in
            (
                try String.fetchAll(db, sql: "SELECT name FROM device_item ORDER BY id"),
                try String?.fetchAll(db, sql: "SELECT rpId FROM passkey ORDER BY createdAt")
            )
        }
    }

    @Test func aStoreTheReleaseBeforeWroteHasItsClearItemsAndUnknownRpIdsMarked() throws {
        let migrated = try open(at: "v5-webauthn")
        #expect(migrated.items == ["unsealed/activation.possessionKey", "activation.registrationId"])
        #expect(migrated.rpIds == [nil, "localhost"])
    }

    @Test func anUpgradeCutOffAfterV6StillMarks() throws {
        // v5a and v6 committed, then the process died: v6 gave every passkey the default application's RP id.
        let migrated = try open(at: "v6-passkey-bindings") { db in
            let noted = try db.tableExists("release_before_upgrade")
            #expect(noted)
        }
        #expect(migrated.items == ["unsealed/activation.possessionKey", "activation.registrationId"])
        #expect(migrated.rpIds == [nil, "localhost"])
    }

    @Test(arguments: ["v7-operations", "v15-attempt-milliseconds"]) func aStoreALaterVersionWroteKeepsItsRows(_ upTo: String) throws {
        // As a version without v5a left it: v5a runs on it with v6 applied, and notes nothing.
        let migrated = try open(at: upTo) { db in
            try db.execute(sql: "DROP TABLE release_before_upgrade; DELETE FROM grdb_migrations WHERE identifier = 'v5a-release-before'")
        }
        #expect(migrated.items == ["activation.possessionKey", "activation.registrationId"])
        #expect(migrated.rpIds == ["bank.example", "localhost"])
    }
}

/// The item names both stores' v16 mark are the simulated phone's sealed items, and its mark is the one the phone reads.
@Suite struct ReleaseBeforeNamesTests {
    @Test func bothMigrationsMarkThePhonesSealedItems() {
        let names = StoreDeviceStorage.sealedItems.map { "'\($0.rawValue)'" }.sorted()
        func listed(_ sql: String) -> [String] {
            sql.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.sorted()
        }
        #expect(listed(Migrations.sealedDeviceItems) == names)
        #expect(listed(PostgresMigrations.sealedDeviceItems) == names)
        #expect(Migrations.v16.contains("'\(SimulatedDevices.writtenUnsealed)' || name"))
        #expect(PostgresMigrations.v16.contains(#"'\#(SimulatedDevices.writtenUnsealed)' || "name""#))
    }
}
