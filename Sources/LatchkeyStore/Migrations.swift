import GRDB

/// The schema, as append-only migrations: a landed migration is never edited; changes come
/// as new ones. Table and column names are literal here, independent of the record types.
enum Migrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: v1)
        }
        return migrator
    }

    static let v1 = """
    CREATE TABLE audit_event (
        id TEXT PRIMARY KEY NOT NULL,
        at INTEGER NOT NULL,
        type TEXT NOT NULL,
        userId TEXT,
        registrationId TEXT,
        deviceId TEXT,
        detail TEXT
    );
    CREATE INDEX audit_event_user ON audit_event(userId);
    CREATE INDEX audit_event_registration ON audit_event(registrationId);
    """
}
