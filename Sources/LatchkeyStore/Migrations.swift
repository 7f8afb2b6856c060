import Foundation
import GRDB
import LatchkeyStorage

/// The schema, as append-only migrations: a landed migration is never edited; changes come as new ones.
///
/// Table and column names are literal here, independent of the record types. Server tables and device
/// tables (`device*`) are kept apart: no foreign key crosses them.
enum Migrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: v1)
        }
        migrator.registerMigration("v2-byte-blobs") { db in
            try convertByteTextToBlobs(db)
        }
        migrator.registerMigration("v3-devices-outside") { db in
            try db.execute(sql: v3)
        }
        migrator.registerMigration("v4-challenge-caller") { db in
            try db.execute(sql: v4)
        }
        migrator.registerMigration("v5-webauthn") { db in
            try db.execute(sql: v5)
        }
        migrator.registerMigration("v5a-release-before") { db in
            // Registered after v5 and run in its own transaction before v6 on a store the release before wrote: it notes so in the
            // store, for v16, whether or not that upgrade is cut off in between. On a store with v6 applied it runs before the
            // migrations still to come and notes nothing; on a new one it notes, and v16 finds nothing to mark.
            let later = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM grdb_migrations WHERE identifier = 'v6-passkey-bindings')")
            if later != true { try db.execute(sql: "CREATE TABLE release_before_upgrade (id INTEGER PRIMARY KEY)") }
        }
        migrator.registerMigration("v6-passkey-bindings") { db in
            try db.execute(sql: v6)
        }
        migrator.registerMigration("v7-operations") { db in
            try db.execute(sql: v7)
        }
        migrator.registerMigration("v8-callbacks") { db in
            try db.execute(sql: v8)
        }
        migrator.registerMigration("v9-key-agreements") { db in
            try db.execute(sql: v9)
        }
        migrator.registerMigration("v10-pending-deliveries") { db in
            try db.execute(sql: v10)
        }
        migrator.registerMigration("v11-audit-partial-indexes") { db in
            try db.execute(sql: v11)
        }
        migrator.registerMigration("v12-onboarding-due") { db in
            try db.execute(sql: v12)
        }
        migrator.registerMigration("v13-forgetting") { db in
            try db.execute(sql: v13)
        }
        migrator.registerMigration("v14-store-key") { db in
            try db.execute(sql: v14)
        }
        migrator.registerMigration("v15-attempt-milliseconds") { db in
            try db.execute(sql: v15)
        }
        migrator.registerMigration("v16-release-before") { db in
            // Only a store the release before this one wrote (at v5, as v5a noted): no later version wrote what v16 marks.
            if try db.tableExists("release_before_upgrade") { try db.execute(sql: v16 + "DROP TABLE release_before_upgrade;") }
        }
        migrator.registerMigration("v17-forgetting-sessions") { db in
            try db.execute(sql: v17)
        }
        return migrator
    }

    /// Refuses a store a newer Latchkey has migrated (GRDB would leave the migrations it does not know be and go on).
    /// - Throws: `StoreNewerThanThisVersion`, what SQLite throws.
    static func requireNoNewerVersion(_ db: Database) throws {
        guard try migrator.hasBeenSuperseded(db) else { return }
        let known = Set(migrator.migrations)
        let applied = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
        throw StoreNewerThanThisVersion(unknownMigrations: applied.filter { !known.contains($0) }.sorted())
    }

    static let v1 = """
        CREATE TABLE server_config (
            id TEXT PRIMARY KEY NOT NULL, gracePeriodSeconds INTEGER NOT NULL,
            insecureWindowSeconds INTEGER NOT NULL, sessionLifetimeSeconds INTEGER NOT NULL);
        CREATE TABLE audit_event (
            id TEXT PRIMARY KEY NOT NULL, at INTEGER NOT NULL, type TEXT NOT NULL,
            userId TEXT, registrationId TEXT, deviceId TEXT, detail TEXT);
        CREATE INDEX audit_event_user ON audit_event(userId);
        CREATE INDEX audit_event_registration ON audit_event(registrationId);
        CREATE TABLE rate_event (id TEXT PRIMARY KEY NOT NULL, scope TEXT NOT NULL, subject TEXT NOT NULL, at INTEGER NOT NULL);
        CREATE INDEX rate_event_subject ON rate_event(scope, subject, at);

        CREATE TABLE application (
            id TEXT PRIMARY KEY NOT NULL, activationCodeLength INTEGER NOT NULL, activationCodeType TEXT NOT NULL,
            activationCodeTtlSeconds INTEGER NOT NULL, pinCodeType TEXT NOT NULL, pinCodeLengthMin INTEGER NOT NULL,
            pinCodeLengthMax INTEGER NOT NULL, maxFailedAttempts INTEGER NOT NULL, authMethods TEXT NOT NULL,
            addOrUpdateAllowedBy TEXT NOT NULL, tokenTtlSeconds INTEGER NOT NULL, redirectUrlPrefixes TEXT NOT NULL);

        CREATE TABLE user (
            id TEXT PRIMARY KEY NOT NULL, email TEXT, emailKey TEXT UNIQUE, phoneNumber TEXT UNIQUE,
            passwordHash BLOB, passwordSalt BLOB, birthDate TEXT, attributes TEXT, createdAt INTEGER NOT NULL);
        CREATE TABLE passkey (id TEXT PRIMARY KEY NOT NULL, userId TEXT NOT NULL, friendlyName TEXT NOT NULL, createdAt INTEGER NOT NULL);
        CREATE INDEX passkey_user ON passkey(userId);

        CREATE TABLE activation_code (
            id TEXT PRIMARY KEY NOT NULL, codeHash TEXT NOT NULL, userId TEXT NOT NULL, applicationId TEXT NOT NULL,
            expiresAt INTEGER NOT NULL, boundDeviceId TEXT, consumed BOOLEAN NOT NULL, createdAt INTEGER NOT NULL);
        CREATE INDEX activation_code_hash ON activation_code(codeHash);

        CREATE TABLE registration (
            id TEXT PRIMARY KEY NOT NULL, userId TEXT NOT NULL, applicationId TEXT NOT NULL, deviceId TEXT NOT NULL,
            state TEXT NOT NULL, authMethods TEXT NOT NULL, failedAttempts INTEGER NOT NULL, lastAttempt INTEGER,
            possessionPublicKey BLOB NOT NULL, pinPublicKey BLOB, touchIdPublicKey BLOB, faceIdPublicKey BLOB,
            recoveryPublicKey BLOB, recoveryFailedAttempts INTEGER NOT NULL, keyGeneration INTEGER NOT NULL,
            signCounter INTEGER NOT NULL, createdAt INTEGER NOT NULL);
        CREATE INDEX registration_user ON registration(userId, state);

        CREATE TABLE operation_session (
            id TEXT PRIMARY KEY NOT NULL, kind TEXT NOT NULL, registrationId TEXT, activationCodeId TEXT,
            onboardingProcessId TEXT, pushedAuthenticationId TEXT, challenge BLOB NOT NULL, counter INTEGER NOT NULL,
            tokenExpiresAt INTEGER, createdAt INTEGER NOT NULL);

        CREATE TABLE pushed_authentication (
            id TEXT PRIMARY KEY NOT NULL, registrationId TEXT NOT NULL, contextTitle TEXT, contextContent TEXT,
            contextMIME TEXT, status TEXT NOT NULL, expiresAt INTEGER NOT NULL, decidedAt INTEGER, createdAt INTEGER NOT NULL);
        CREATE INDEX pushed_authentication_registration ON pushed_authentication(registrationId, status);

        CREATE TABLE token (
            id TEXT PRIMARY KEY NOT NULL, registrationId TEXT NOT NULL, purpose TEXT NOT NULL, keyGeneration INTEGER NOT NULL,
            expiresAt INTEGER NOT NULL, used BOOLEAN NOT NULL, createdAt INTEGER NOT NULL);
        CREATE INDEX token_registration ON token(registrationId);

        CREATE TABLE onboarding_process (
            id TEXT PRIMARY KEY NOT NULL, deviceId TEXT NOT NULL, userId TEXT, applicationId TEXT NOT NULL, channel TEXT,
            address TEXT, otpHash TEXT, otpExpiresAt INTEGER, lastSentAt INTEGER, wrongOtps INTEGER NOT NULL,
            status TEXT NOT NULL, canRestoreSession BOOLEAN NOT NULL, instance TEXT NOT NULL, otpAccepted BOOLEAN NOT NULL,
            registrationId TEXT, closed BOOLEAN NOT NULL, createdAt INTEGER NOT NULL);
        CREATE INDEX onboarding_process_device ON onboarding_process(deviceId, closed);
        CREATE INDEX onboarding_process_registration ON onboarding_process(registrationId);

        CREATE TABLE account_recovery (
            id TEXT PRIMARY KEY NOT NULL, state INTEGER NOT NULL, reason INTEGER NOT NULL,
            startTime INTEGER NOT NULL, endTime INTEGER);
        CREATE INDEX account_recovery_due ON account_recovery(state, endTime);
        CREATE TABLE user_session (
            id TEXT PRIMARY KEY NOT NULL, userId TEXT NOT NULL, createdAt INTEGER NOT NULL, expiresAt INTEGER NOT NULL);
        CREATE INDEX user_session_user ON user_session(userId);
        CREATE TABLE reset_code (
            id TEXT PRIMARY KEY NOT NULL, subject TEXT NOT NULL, userId TEXT NOT NULL, kind TEXT NOT NULL,
            codeHash TEXT NOT NULL, expiresAt INTEGER NOT NULL, wrongTries INTEGER NOT NULL, consumed BOOLEAN NOT NULL,
            createdAt INTEGER NOT NULL);
        CREATE INDEX reset_code_subject ON reset_code(subject, consumed);
        CREATE INDEX reset_code_user ON reset_code(userId);

        CREATE TABLE device (
            id TEXT PRIMARY KEY NOT NULL, biometry TEXT NOT NULL, iCloudKeychain BOOLEAN NOT NULL, name TEXT,
            biometricOutcome TEXT NOT NULL, createdAt INTEGER NOT NULL);
        CREATE TABLE device_item (
            id TEXT PRIMARY KEY NOT NULL, deviceId TEXT NOT NULL, name TEXT NOT NULL, value BLOB NOT NULL,
            thisDeviceOnly BOOLEAN NOT NULL);
        CREATE INDEX device_item_device ON device_item(deviceId);
        CREATE TABLE device_backup (id TEXT PRIMARY KEY NOT NULL, deviceId TEXT NOT NULL, kind TEXT NOT NULL, createdAt INTEGER NOT NULL);
        CREATE TABLE device_backup_item (id TEXT PRIMARY KEY NOT NULL, backupId TEXT NOT NULL, name TEXT NOT NULL, value BLOB NOT NULL);
        CREATE INDEX device_backup_item_backup ON device_backup_item(backupId);
        """

    /// Devices outside the process: activations and challenges of their own (a device holds
    /// its pending operation; the per-device session table goes), login names for users, names
    /// for registrations (the seed's activationName), and the name and app installation an
    /// audit event concerns.
    static let v3 = """
        CREATE TABLE activation (
            id TEXT PRIMARY KEY NOT NULL, codeId TEXT, processId TEXT, caller TEXT NOT NULL, challenge TEXT NOT NULL,
            expiresAt INTEGER NOT NULL, createdAt INTEGER NOT NULL);
        CREATE INDEX activation_by_code ON activation(codeId);
        CREATE TABLE challenge (
            id TEXT PRIMARY KEY NOT NULL, registrationId TEXT NOT NULL, purpose TEXT NOT NULL, challenge TEXT NOT NULL,
            contextHash TEXT NOT NULL, pushedAuthenticationId TEXT, tokenExpiresAt INTEGER, expiresAt INTEGER NOT NULL,
            createdAt INTEGER NOT NULL);
        CREATE INDEX challenge_registration ON challenge(registrationId, expiresAt);
        DROP TABLE operation_session;
        ALTER TABLE user ADD COLUMN loginName TEXT;
        CREATE UNIQUE INDEX user_login_name ON user(loginName);
        ALTER TABLE registration ADD COLUMN name TEXT;
        ALTER TABLE audit_event ADD COLUMN activationName TEXT;
        ALTER TABLE audit_event ADD COLUMN installationId TEXT;
        """

    /// The caller a challenge was issued to (a recovery's installation), so what its answer
    /// causes is audited with it.
    static let v4 = """
        ALTER TABLE challenge ADD COLUMN caller TEXT;
        """

    /// Passkeys as WebAuthn credentials: the Relying Party of each application, a user handle
    /// per user, a passkey's public key and counters, and the ceremonies that make and use them.
    static let v5 = """
        ALTER TABLE application ADD COLUMN passkeyRpId TEXT;
        ALTER TABLE application ADD COLUMN passkeyRpName TEXT;
        ALTER TABLE application ADD COLUMN passkeyOrigins TEXT;
        ALTER TABLE application ADD COLUMN passkeyUserVerification TEXT;
        ALTER TABLE user ADD COLUMN passkeyUserHandle BLOB;
        ALTER TABLE passkey ADD COLUMN publicKey BLOB;
        ALTER TABLE passkey ADD COLUMN algorithm INTEGER;
        ALTER TABLE passkey ADD COLUMN signCount INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE passkey ADD COLUMN backupEligible INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE passkey ADD COLUMN backedUp INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE passkey ADD COLUMN transports TEXT NOT NULL DEFAULT '';
        ALTER TABLE passkey ADD COLUMN aaguid TEXT;
        ALTER TABLE passkey ADD COLUMN lastUsedAt INTEGER;
        CREATE TABLE passkey_ceremony (
            id TEXT PRIMARY KEY NOT NULL, kind TEXT NOT NULL, applicationId TEXT NOT NULL, userId TEXT,
            named INTEGER NOT NULL, challenge BLOB NOT NULL, expiresAt INTEGER NOT NULL, createdAt INTEGER NOT NULL);
        CREATE INDEX passkey_ceremony_expiry ON passkey_ceremony(expiresAt);
        """

    /// What binds a passkey and its ceremonies: the RP id a passkey was registered under (rows
    /// from before: the `default` application's), whether its backup eligibility is known (an
    /// imported passkey given none learns it at its first sign-in), what opened a creation
    /// ceremony (a session, or a verification code), the application a reset code was asked for,
    /// and the users' passkey handles looked up by value (they are unique).
    static let v6 = """
        ALTER TABLE passkey ADD COLUMN rpId TEXT;
        ALTER TABLE passkey ADD COLUMN backupEligibleKnown INTEGER NOT NULL DEFAULT 1;
        UPDATE passkey SET rpId = COALESCE((SELECT passkeyRpId FROM application WHERE id = 'default'), 'localhost');
        UPDATE passkey SET backupEligibleKnown = 0 WHERE aaguid IS NULL;
        CREATE INDEX passkey_user_rp ON passkey(userId, rpId);
        ALTER TABLE passkey_ceremony ADD COLUMN openedBy TEXT;
        ALTER TABLE reset_code ADD COLUMN applicationId TEXT;
        CREATE INDEX user_passkey_handle ON user(passkeyUserHandle);
        """

    /// Operations (what a user approves on their phone) and their templates, the server's own keys
    /// (sealed), and what binds a challenge or a passkey ceremony to one operation.
    static let v7 = """
        CREATE TABLE operation_template (
            id TEXT PRIMARY KEY NOT NULL, applicationId TEXT NOT NULL, name TEXT NOT NULL, title TEXT NOT NULL,
            message TEXT NOT NULL, data TEXT NOT NULL, attributes BLOB NOT NULL, maxFailureCount INTEGER NOT NULL,
            ttlSeconds INTEGER NOT NULL, allowedMethods TEXT NOT NULL, createdAt INTEGER NOT NULL);
        CREATE TABLE operation (
            id TEXT PRIMARY KEY NOT NULL, userId TEXT NOT NULL, applicationId TEXT NOT NULL, registrationId TEXT,
            template TEXT NOT NULL, data TEXT NOT NULL, title TEXT NOT NULL, message TEXT NOT NULL, attributes BLOB NOT NULL,
            status TEXT NOT NULL, failureCount INTEGER NOT NULL, maxFailureCount INTEGER NOT NULL, allowedMethods TEXT NOT NULL,
            createdAt INTEGER NOT NULL, expiresAt INTEGER NOT NULL, decidedAt INTEGER, approvedWith TEXT, rejectReason TEXT,
            externalId TEXT);
        CREATE INDEX operation_user ON operation(userId, applicationId, status);
        CREATE INDEX operation_due ON operation(status, expiresAt);
        CREATE TABLE application_key (
            id TEXT PRIMARY KEY NOT NULL, sealedPrivateKey BLOB NOT NULL, publicKey BLOB NOT NULL, createdAt INTEGER NOT NULL);
        CREATE TABLE registration_key (
            id TEXT PRIMARY KEY NOT NULL, sealedPrivateKey BLOB NOT NULL, publicKey BLOB NOT NULL, createdAt INTEGER NOT NULL);
        ALTER TABLE challenge ADD COLUMN operationId TEXT;
        ALTER TABLE passkey_ceremony ADD COLUMN operationId TEXT;
        ALTER TABLE passkey_ceremony ADD COLUMN nonce TEXT;
        ALTER TABLE audit_event ADD COLUMN operationId TEXT;
        ALTER TABLE audit_event ADD COLUMN dataMismatch INTEGER;
        CREATE TABLE operation_qr (
            id TEXT PRIMARY KEY NOT NULL, operationId TEXT NOT NULL, registrationId TEXT NOT NULL, nonce TEXT NOT NULL,
            biometric INTEGER NOT NULL, createdAt INTEGER NOT NULL);
        CREATE INDEX operation_qr_operation ON operation_qr(operationId, registrationId);
        """

    /// Callbacks: the URLs an operator configured, the events written with the changes they report
    /// (numbered in commit order), and each event's delivery to each callback.
    static let v8 = """
        CREATE TABLE callback (
            id TEXT PRIMARY KEY NOT NULL, applicationId TEXT NOT NULL, url TEXT NOT NULL, events TEXT NOT NULL,
            sealedSecret BLOB NOT NULL, afterSeq INTEGER NOT NULL, createdAt INTEGER NOT NULL);
        CREATE INDEX callback_application ON callback(applicationId);
        CREATE TABLE callback_event (
            id TEXT PRIMARY KEY NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, applicationId TEXT, createdAt INTEGER NOT NULL,
            data BLOB NOT NULL, fannedOut INTEGER NOT NULL);
        CREATE INDEX callback_event_fan_out ON callback_event(fannedOut, seq);
        CREATE TABLE callback_delivery (
            id TEXT PRIMARY KEY NOT NULL, callbackId TEXT NOT NULL, eventId TEXT NOT NULL, eventSeq INTEGER NOT NULL,
            type TEXT NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL, lastAttemptAt INTEGER, lastStatusCode INTEGER,
            lastError TEXT, nextAttemptAt INTEGER, leaseUntil INTEGER, createdAt INTEGER NOT NULL);
        CREATE INDEX callback_delivery_due ON callback_delivery(status, nextAttemptAt);
        CREATE INDEX callback_delivery_callback ON callback_delivery(callbackId, status);
        CREATE INDEX callback_delivery_event ON callback_delivery(eventId);
        """

    /// Offline approval: the ECDH shared secrets of a registration's server key with the phone's
    /// keys, sealed beside it, so that checking a code agrees no key.
    static let v9 = """
        ALTER TABLE registration_key ADD COLUMN sealedAgreements BLOB;
        """

    /// An index the worker's claim can read in insertion order.
    ///
    /// The claim reads the first due pending deliveries (`ORDER BY rowid LIMIT n`). On (status,
    /// nextAttemptAt) SQLite found every due one and sorted them all, a claim costing the whole
    /// backlog; an index on status alone keeps its entries in rowid order, so the claim reads the
    /// first ones and stops.
    static let v10 = """
        DROP INDEX callback_delivery_due;
        CREATE INDEX callback_delivery_pending ON callback_delivery(status);
        """

    /// The audit log's user and registration indexes hold only the rows that have one.
    ///
    /// Every audit row wrote a page of each index, a null entry where the event has no user or
    /// no registration (a passkey sign-in's has no registration): one page write less for each. The only
    /// reads through them ask for one user's or one registration's rows (`userId = ?`), which a
    /// partial index on `IS NOT NULL` serves.
    static let v11 = """
        DROP INDEX audit_event_user;
        CREATE INDEX audit_event_user ON audit_event(userId) WHERE userId IS NOT NULL;
        DROP INDEX audit_event_registration;
        CREATE INDEX audit_event_registration ON audit_event(registrationId) WHERE registrationId IS NOT NULL;
        """

    /// Onboarding processes still waiting for their OTP, found by the clock that fails them 3 h after their start.
    static let v12 = """
        CREATE INDEX onboarding_process_due ON onboarding_process(status, closed, createdAt);
        """

    /// What `forgetExpiredRows` forgets by time, found by it; and the first process waiting for its
    /// OTP found in row order without sorting every waiting one (v12's index orders them by start, then row).
    static let v13 = """
        CREATE INDEX rate_event_age ON rate_event(scope, at);
        CREATE INDEX reset_code_expiry ON reset_code(expiresAt);
        CREATE INDEX challenge_expiry ON challenge(expiresAt);
        CREATE INDEX onboarding_process_waiting ON onboarding_process(status, closed);
        """

    /// Which key the store was first used with (`StoreKeyRecord`): another key is refused, not used beside it.
    static let v14 = """
        CREATE TABLE store_key (id TEXT PRIMARY KEY NOT NULL, keyCheck TEXT NOT NULL, createdAt INTEGER NOT NULL);
        """

    /// When a callback delivery's last attempt began, to the millisecond: a retry another process takes begins no sooner than its delay.
    static let v15 = """
        ALTER TABLE callback_delivery ADD COLUMN lastAttemptStartedMilliseconds INTEGER;
        """

    /// Ended sessions and used tokens, found by `forgetExpiredRows`.
    static let v17 = """
        CREATE INDEX user_session_expiry ON user_session(expiresAt);
        CREATE INDEX token_used ON token(used, expiresAt);
        """

    /// What a store the release before wrote keeps that this version must read otherwise.
    ///
    /// The simulated phones' secret items it kept in clear, marked so (`unsealed/` before the name): they open as they are, and the
    /// phone seals each in its row when it reads it. The RP id of the passkeys it registered, which v6 took to be the `default`
    /// application's, unknown: the first sign-in proves it.
    static let v16 = """
        UPDATE passkey SET rpId = NULL WHERE aaguid IS NOT NULL;
        UPDATE device_item SET name = 'unsealed/' || name WHERE name IN (\(sealedDeviceItems));
        UPDATE device_backup_item SET name = 'unsealed/' || name WHERE name IN (\(sealedDeviceItems));
        """

    /// The names of the simulated phone's items that are kept sealed, as SQL text literals.
    static let sealedDeviceItems = """
        'activation.possessionKey', 'activation.pinMaskedKey', 'activation.touchIdKey', 'activation.faceIdKey', 'activation.pending', \
        'recovery.maskedKey', 'passkeys.synced', 'passkeys.deviceBound'
        """

    /// Byte columns that v1-era binaries wrote as JSON text (`[4,237,…]`), rewritten as BLOBs.
    static let byteColumns: [(table: String, column: String)] = [
        ("user", "passwordHash"), ("user", "passwordSalt"),
        ("registration", "possessionPublicKey"), ("registration", "pinPublicKey"),
        ("registration", "touchIdPublicKey"), ("registration", "faceIdPublicKey"),
        ("registration", "recoveryPublicKey"), ("operation_session", "challenge"),
        ("device_item", "value"), ("device_backup_item", "value"),
    ]

    static func convertByteTextToBlobs(_ db: Database) throws {
        let decoder = JSONDecoder()
        for (table, column) in byteColumns {
            let select = "SELECT id, \(column) FROM \(table) WHERE typeof(\(column)) = 'text'"
            let update = "UPDATE \(table) SET \(column) = ? WHERE id = ?"
            for row in try Row.fetchAll(db, sql: select) {
                let id: String = row[0]
                let text: String = row[1]
                guard let numbers = try? decoder.decode([UInt8].self, from: Data(text.utf8)) else {
                    throw StoreDamaged(description: "\(table).\(column) of row \(id) is neither a blob nor a JSON byte array")
                }
                try db.execute(sql: update, arguments: [Data(numbers), id])
            }
        }
    }
}

/// The file holds what no version of Latchkey wrote: opening it again will not help.
public struct StoreDamaged: Error, CustomStringConvertible, Sendable {
    public let description: String
}
