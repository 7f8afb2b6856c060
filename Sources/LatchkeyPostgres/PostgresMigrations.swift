import LatchkeyStorage

/// The PostgreSQL schema, as append-only migrations: a landed migration is never edited; changes come as new ones.
///
/// The tables and columns are the SQLite store's (bigint for integers and Unix times, bytea for bytes,
/// boolean for flags); every table also carries `_seq`, its insertion order (SQLite's rowid), which
/// orders `fetchAll`. Identifiers are quoted: the columns are camelCase and `user` is a reserved word.
enum PostgresMigrations {
    /// Migrations in order: (name, SQL).
    static let all: [(name: String, sql: String)] = [
        ("v1", v1),
        ("v2-challenge-caller", v2),
        ("v3-webauthn", v3),
        ("v4-outbox", v4),
        ("v5-keychain-order", v5),
        ("v6-commit-marker", v6),
        ("v6a-release-before", v6a),
        ("v7-passkey-bindings", v7),
        ("v8-operations", v8),
        ("v9-callbacks", v9),
        ("v10-read-sets", v10),
        ("v11-key-agreements", v11),
        ("v12-onboarding-due", v12),
        ("v13-forgetting", v13),
        ("v14-store-key", v14),
        ("v15-attempt-milliseconds", v15),
        ("v16-release-before", v16),
        ("v17-forgetting-sessions", v17),
    ]

    /// A migration (or the wait for another process's) may take this long: it has no lock timeout of its own.
    static let migrationWaitMilliseconds: Int64 = 3_600_000

    /// Runs the migrations not yet applied, each once, in one transaction under an advisory lock,
    /// so processes that start together wait for the first one and then find the work done.
    static func migrate(_ connection: PostgresConnection) throws {
        connection.answerWaitMilliseconds = migrationWaitMilliseconds
        defer { connection.answerWaitMilliseconds = PostgresConnection.defaultAnswerWaitMilliseconds }
        try connection.execute("BEGIN")
        do {
            try connection.execute("SET LOCAL lock_timeout = 0")
            try connection.execute("SELECT pg_advisory_xact_lock(\(lockKey))")
            try connection.execute(
                "CREATE TABLE IF NOT EXISTS latchkey_migration (name TEXT PRIMARY KEY NOT NULL, appliedAt TIMESTAMPTZ NOT NULL DEFAULT now())")
            let applied = Set(
                try connection.execute("SELECT name FROM latchkey_migration").rows.compactMap { row -> String? in
                    if case .text(let name)? = row.first { return name }
                    return nil
                })
            // A database a newer Latchkey has migrated is not used (nor migrated).
            let unknown = applied.subtracting(all.map(\.name)).sorted()
            guard unknown.isEmpty else { throw StoreNewerThanThisVersion(unknownMigrations: unknown) }
            for migration in all where !applied.contains(migration.name) {
                try connection.execute(migration.sql)
                try connection.query("INSERT INTO latchkey_migration (name) VALUES ($1)", [.text(migration.name)])
            }
            try connection.execute("COMMIT")
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// The advisory lock's key: "latchkey" in ASCII, a constant every version uses.
    static let lockKey: Int64 = 0x6C61_7463_686B_6579

    /// Notes a store the release before wrote (the SQLite store's v5a): listed after v6, it runs before v7 there, in the same
    /// transaction, and on a new store (v16 then finds nothing to mark); on a store with v7 applied it notes nothing.
    static let v6a = """
        DO $$ BEGIN
            IF NOT EXISTS (SELECT 1 FROM latchkey_migration WHERE name = 'v7-passkey-bindings') THEN
                CREATE TABLE "release_before_upgrade" ("id" BIGINT PRIMARY KEY);
            END IF;
        END $$;
        """

    /// The SQLite store's schema as of its migration v3, with the indexes every domain lookup
    /// uses (the audit list newest first, activations by process).
    static let v1 = """
        CREATE TABLE "server_config" (
            "id" TEXT PRIMARY KEY, "gracePeriodSeconds" BIGINT NOT NULL, "insecureWindowSeconds" BIGINT NOT NULL,
            "sessionLifetimeSeconds" BIGINT NOT NULL, "_seq" BIGSERIAL);
        CREATE TABLE "audit_event" (
            "id" TEXT PRIMARY KEY, "at" BIGINT NOT NULL, "type" TEXT NOT NULL, "userId" TEXT,
            "registrationId" TEXT, "deviceId" TEXT, "detail" TEXT, "activationName" TEXT, "installationId" TEXT,
            "_seq" BIGSERIAL);
        CREATE INDEX "audit_event_registration" ON "audit_event"("registrationId");
        CREATE INDEX "audit_event_user" ON "audit_event"("userId");
        CREATE TABLE "rate_event" (
            "id" TEXT PRIMARY KEY, "scope" TEXT NOT NULL, "subject" TEXT NOT NULL, "at" BIGINT NOT NULL,
            "_seq" BIGSERIAL);
        CREATE INDEX "rate_event_subject" ON "rate_event"("scope", "subject", "at");
        CREATE TABLE "application" (
            "id" TEXT PRIMARY KEY, "activationCodeLength" BIGINT NOT NULL, "activationCodeType" TEXT NOT NULL,
            "activationCodeTtlSeconds" BIGINT NOT NULL, "pinCodeType" TEXT NOT NULL,
            "pinCodeLengthMin" BIGINT NOT NULL, "pinCodeLengthMax" BIGINT NOT NULL,
            "maxFailedAttempts" BIGINT NOT NULL, "authMethods" TEXT NOT NULL,
            "addOrUpdateAllowedBy" TEXT NOT NULL, "tokenTtlSeconds" BIGINT NOT NULL,
            "redirectUrlPrefixes" TEXT NOT NULL, "_seq" BIGSERIAL);
        CREATE TABLE "user" (
            "id" TEXT PRIMARY KEY, "email" TEXT, "emailKey" TEXT, "phoneNumber" TEXT, "passwordHash" BYTEA,
            "passwordSalt" BYTEA, "birthDate" TEXT, "attributes" TEXT, "createdAt" BIGINT NOT NULL,
            "loginName" TEXT, "_seq" BIGSERIAL);
        CREATE UNIQUE INDEX "user_login_name" ON "user"("loginName");
        CREATE UNIQUE INDEX "user_phoneNumber_key" ON "user"("phoneNumber");
        CREATE UNIQUE INDEX "user_emailKey_key" ON "user"("emailKey");
        CREATE TABLE "passkey" (
            "id" TEXT PRIMARY KEY, "userId" TEXT NOT NULL, "friendlyName" TEXT NOT NULL,
            "createdAt" BIGINT NOT NULL, "_seq" BIGSERIAL);
        CREATE INDEX "passkey_user" ON "passkey"("userId");
        CREATE TABLE "activation_code" (
            "id" TEXT PRIMARY KEY, "codeHash" TEXT NOT NULL, "userId" TEXT NOT NULL,
            "applicationId" TEXT NOT NULL, "expiresAt" BIGINT NOT NULL, "boundDeviceId" TEXT,
            "consumed" BOOLEAN NOT NULL, "createdAt" BIGINT NOT NULL, "_seq" BIGSERIAL);
        CREATE INDEX "activation_code_hash" ON "activation_code"("codeHash");
        CREATE TABLE "registration" (
            "id" TEXT PRIMARY KEY, "userId" TEXT NOT NULL, "applicationId" TEXT NOT NULL,
            "deviceId" TEXT NOT NULL, "state" TEXT NOT NULL, "authMethods" TEXT NOT NULL,
            "failedAttempts" BIGINT NOT NULL, "lastAttempt" BIGINT, "possessionPublicKey" BYTEA NOT NULL,
            "pinPublicKey" BYTEA, "touchIdPublicKey" BYTEA, "faceIdPublicKey" BYTEA, "recoveryPublicKey" BYTEA,
            "recoveryFailedAttempts" BIGINT NOT NULL, "keyGeneration" BIGINT NOT NULL,
            "signCounter" BIGINT NOT NULL, "createdAt" BIGINT NOT NULL, "name" TEXT, "_seq" BIGSERIAL);
        CREATE INDEX "registration_user" ON "registration"("userId", "state");
        CREATE TABLE "pushed_authentication" (
            "id" TEXT PRIMARY KEY, "registrationId" TEXT NOT NULL, "contextTitle" TEXT, "contextContent" TEXT,
            "contextMIME" TEXT, "status" TEXT NOT NULL, "expiresAt" BIGINT NOT NULL, "decidedAt" BIGINT,
            "createdAt" BIGINT NOT NULL, "_seq" BIGSERIAL);
        CREATE INDEX "pushed_authentication_registration" ON "pushed_authentication"("registrationId", "status");
        CREATE TABLE "token" (
            "id" TEXT PRIMARY KEY, "registrationId" TEXT NOT NULL, "purpose" TEXT NOT NULL,
            "keyGeneration" BIGINT NOT NULL, "expiresAt" BIGINT NOT NULL, "used" BOOLEAN NOT NULL,
            "createdAt" BIGINT NOT NULL, "_seq" BIGSERIAL);
        CREATE INDEX "token_registration" ON "token"("registrationId");
        CREATE TABLE "onboarding_process" (
            "id" TEXT PRIMARY KEY, "deviceId" TEXT NOT NULL, "userId" TEXT, "applicationId" TEXT NOT NULL,
            "channel" TEXT, "address" TEXT, "otpHash" TEXT, "otpExpiresAt" BIGINT, "lastSentAt" BIGINT,
            "wrongOtps" BIGINT NOT NULL, "status" TEXT NOT NULL, "canRestoreSession" BOOLEAN NOT NULL,
            "instance" TEXT NOT NULL, "otpAccepted" BOOLEAN NOT NULL, "registrationId" TEXT,
            "closed" BOOLEAN NOT NULL, "createdAt" BIGINT NOT NULL, "_seq" BIGSERIAL);
        CREATE INDEX "onboarding_process_registration" ON "onboarding_process"("registrationId");
        CREATE INDEX "onboarding_process_device" ON "onboarding_process"("deviceId", "closed");
        CREATE TABLE "account_recovery" (
            "id" TEXT PRIMARY KEY, "state" BIGINT NOT NULL, "reason" BIGINT NOT NULL,
            "startTime" BIGINT NOT NULL, "endTime" BIGINT, "_seq" BIGSERIAL);
        CREATE INDEX "account_recovery_due" ON "account_recovery"("state", "endTime");
        CREATE TABLE "user_session" (
            "id" TEXT PRIMARY KEY, "userId" TEXT NOT NULL, "createdAt" BIGINT NOT NULL,
            "expiresAt" BIGINT NOT NULL, "_seq" BIGSERIAL);
        CREATE INDEX "user_session_user" ON "user_session"("userId");
        CREATE TABLE "reset_code" (
            "id" TEXT PRIMARY KEY, "subject" TEXT NOT NULL, "userId" TEXT NOT NULL, "kind" TEXT NOT NULL,
            "codeHash" TEXT NOT NULL, "expiresAt" BIGINT NOT NULL, "wrongTries" BIGINT NOT NULL,
            "consumed" BOOLEAN NOT NULL, "createdAt" BIGINT NOT NULL, "_seq" BIGSERIAL);
        CREATE INDEX "reset_code_user" ON "reset_code"("userId");
        CREATE INDEX "reset_code_subject" ON "reset_code"("subject", "consumed");
        CREATE TABLE "device" (
            "id" TEXT PRIMARY KEY, "biometry" TEXT NOT NULL, "iCloudKeychain" BOOLEAN NOT NULL, "name" TEXT,
            "biometricOutcome" TEXT NOT NULL, "createdAt" BIGINT NOT NULL, "_seq" BIGSERIAL);
        CREATE TABLE "device_item" (
            "id" TEXT PRIMARY KEY, "deviceId" TEXT NOT NULL, "name" TEXT NOT NULL, "value" BYTEA NOT NULL,
            "thisDeviceOnly" BOOLEAN NOT NULL, "_seq" BIGSERIAL);
        CREATE INDEX "device_item_device" ON "device_item"("deviceId");
        CREATE TABLE "device_backup" (
            "id" TEXT PRIMARY KEY, "deviceId" TEXT NOT NULL, "kind" TEXT NOT NULL, "createdAt" BIGINT NOT NULL,
            "_seq" BIGSERIAL);
        CREATE TABLE "device_backup_item" (
            "id" TEXT PRIMARY KEY, "backupId" TEXT NOT NULL, "name" TEXT NOT NULL, "value" BYTEA NOT NULL,
            "_seq" BIGSERIAL);
        CREATE INDEX "device_backup_item_backup" ON "device_backup_item"("backupId");
        CREATE TABLE "activation" (
            "id" TEXT PRIMARY KEY, "codeId" TEXT, "processId" TEXT, "caller" TEXT NOT NULL,
            "challenge" TEXT NOT NULL, "expiresAt" BIGINT NOT NULL, "createdAt" BIGINT NOT NULL,
            "_seq" BIGSERIAL);
        CREATE INDEX "activation_by_code" ON "activation"("codeId");
        CREATE TABLE "challenge" (
            "id" TEXT PRIMARY KEY, "registrationId" TEXT NOT NULL, "purpose" TEXT NOT NULL,
            "challenge" TEXT NOT NULL, "contextHash" TEXT NOT NULL, "pushedAuthenticationId" TEXT,
            "tokenExpiresAt" BIGINT, "expiresAt" BIGINT NOT NULL, "createdAt" BIGINT NOT NULL, "_seq" BIGSERIAL);
        CREATE INDEX "challenge_registration" ON "challenge"("registrationId", "expiresAt");
        CREATE INDEX "audit_event_seq" ON "audit_event"("_seq");
        CREATE INDEX "activation_by_process" ON "activation"("processId");
        CREATE INDEX "onboarding_process_user" ON "onboarding_process"("userId");
        CREATE INDEX "device_backup_device" ON "device_backup"("deviceId");
        """

    /// The SQLite store's v4: the caller a challenge was issued to (a recovery's installation).
    static let v2 = """
        ALTER TABLE "challenge" ADD COLUMN "caller" TEXT;
        """

    /// The SQLite store's v5: passkeys as WebAuthn credentials, the Relying Party of each
    /// application, user handles and ceremonies.
    static let v3 = """
        ALTER TABLE "application" ADD COLUMN "passkeyRpId" TEXT;
        ALTER TABLE "application" ADD COLUMN "passkeyRpName" TEXT;
        ALTER TABLE "application" ADD COLUMN "passkeyOrigins" TEXT;
        ALTER TABLE "application" ADD COLUMN "passkeyUserVerification" TEXT;
        ALTER TABLE "user" ADD COLUMN "passkeyUserHandle" BYTEA;
        ALTER TABLE "passkey" ADD COLUMN "publicKey" BYTEA;
        ALTER TABLE "passkey" ADD COLUMN "algorithm" BIGINT;
        ALTER TABLE "passkey" ADD COLUMN "signCount" BIGINT NOT NULL DEFAULT 0;
        ALTER TABLE "passkey" ADD COLUMN "backupEligible" BOOLEAN NOT NULL DEFAULT false;
        ALTER TABLE "passkey" ADD COLUMN "backedUp" BOOLEAN NOT NULL DEFAULT false;
        ALTER TABLE "passkey" ADD COLUMN "transports" TEXT NOT NULL DEFAULT '';
        ALTER TABLE "passkey" ADD COLUMN "aaguid" TEXT;
        ALTER TABLE "passkey" ADD COLUMN "lastUsedAt" BIGINT;
        CREATE TABLE "passkey_ceremony" (
            "id" TEXT PRIMARY KEY, "kind" TEXT NOT NULL, "applicationId" TEXT NOT NULL, "userId" TEXT,
            "named" BOOLEAN NOT NULL, "challenge" BYTEA NOT NULL, "expiresAt" BIGINT NOT NULL,
            "createdAt" BIGINT NOT NULL, "_seq" BIGSERIAL);
        CREATE INDEX "passkey_ceremony_expiry" ON "passkey_ceremony"("expiresAt");
        """

    /// The notification outbox (see `PostgresNotifier`): one row per committed transaction that
    /// caused notifications, its sealed payloads in order, numbered in commit order; and each
    /// listening process's cursor (the last number it delivered) with a heartbeat, so rows every
    /// live process has read can be pruned.
    static let v4 = """
        CREATE TABLE "latchkey_outbox" (
            "seq" BIGSERIAL PRIMARY KEY, "payloads" TEXT[] NOT NULL, "createdAt" TIMESTAMPTZ NOT NULL DEFAULT now());
        CREATE TABLE "latchkey_outbox_reader" (
            "id" TEXT PRIMARY KEY, "seq" BIGINT NOT NULL, "heartbeat" TIMESTAMPTZ NOT NULL);
        """

    /// A device's keychain is read in insertion order on nearly every call: an index in that order
    /// spares the sort.
    static let v5 = """
        CREATE INDEX "device_item_device_seq" ON "device_item"("deviceId", "_seq");
        DROP INDEX "device_item_device";
        """

    /// Each process's count of its committed write transactions (see `PostgresCommitMarker`): one
    /// row per process, updated in place by every write, so pages are left half empty for the new
    /// versions (HOT updates, no new index entries).
    static let v6 = """
        CREATE TABLE "latchkey_writer" (
            "id" TEXT PRIMARY KEY, "commits" BIGINT NOT NULL, "at" TIMESTAMPTZ NOT NULL) WITH (fillfactor = 50);
        """

    /// The SQLite store's v6: the RP id a passkey was registered under, whether its backup
    /// eligibility is known, what opened a creation ceremony, the application a reset code was
    /// asked for, and users' passkey handles by value.
    static let v7 = """
        ALTER TABLE "passkey" ADD COLUMN "rpId" TEXT;
        ALTER TABLE "passkey" ADD COLUMN "backupEligibleKnown" BOOLEAN NOT NULL DEFAULT true;
        UPDATE "passkey" SET "rpId" = COALESCE((SELECT "passkeyRpId" FROM "application" WHERE "id" = 'default'), 'localhost');
        UPDATE "passkey" SET "backupEligibleKnown" = false WHERE "aaguid" IS NULL;
        CREATE INDEX "passkey_user_rp" ON "passkey"("userId", "rpId");
        ALTER TABLE "passkey_ceremony" ADD COLUMN "openedBy" TEXT;
        ALTER TABLE "reset_code" ADD COLUMN "applicationId" TEXT;
        CREATE INDEX "user_passkey_handle" ON "user"("passkeyUserHandle");
        """

    /// The SQLite store's v7: operations and their templates, the server's own keys (sealed), and
    /// what binds a challenge or a passkey ceremony to one operation.
    static let v8 = """
        CREATE TABLE "operation_template" (
            "id" TEXT PRIMARY KEY, "applicationId" TEXT NOT NULL, "name" TEXT NOT NULL, "title" TEXT NOT NULL,
            "message" TEXT NOT NULL, "data" TEXT NOT NULL, "attributes" BYTEA NOT NULL, "maxFailureCount" BIGINT NOT NULL,
            "ttlSeconds" BIGINT NOT NULL, "allowedMethods" TEXT NOT NULL, "createdAt" BIGINT NOT NULL, "_seq" BIGSERIAL);
        CREATE TABLE "operation" (
            "id" TEXT PRIMARY KEY, "userId" TEXT NOT NULL, "applicationId" TEXT NOT NULL, "registrationId" TEXT,
            "template" TEXT NOT NULL, "data" TEXT NOT NULL, "title" TEXT NOT NULL, "message" TEXT NOT NULL,
            "attributes" BYTEA NOT NULL, "status" TEXT NOT NULL, "failureCount" BIGINT NOT NULL,
            "maxFailureCount" BIGINT NOT NULL, "allowedMethods" TEXT NOT NULL, "createdAt" BIGINT NOT NULL,
            "expiresAt" BIGINT NOT NULL, "decidedAt" BIGINT, "approvedWith" TEXT, "rejectReason" TEXT, "externalId" TEXT,
            "_seq" BIGSERIAL);
        CREATE INDEX "operation_user" ON "operation"("userId", "applicationId", "status");
        CREATE INDEX "operation_due" ON "operation"("status", "expiresAt");
        CREATE TABLE "application_key" (
            "id" TEXT PRIMARY KEY, "sealedPrivateKey" BYTEA NOT NULL, "publicKey" BYTEA NOT NULL, "createdAt" BIGINT NOT NULL,
            "_seq" BIGSERIAL);
        CREATE TABLE "registration_key" (
            "id" TEXT PRIMARY KEY, "sealedPrivateKey" BYTEA NOT NULL, "publicKey" BYTEA NOT NULL, "createdAt" BIGINT NOT NULL,
            "_seq" BIGSERIAL);
        ALTER TABLE "challenge" ADD COLUMN "operationId" TEXT;
        ALTER TABLE "passkey_ceremony" ADD COLUMN "operationId" TEXT;
        ALTER TABLE "passkey_ceremony" ADD COLUMN "nonce" TEXT;
        ALTER TABLE "audit_event" ADD COLUMN "operationId" TEXT;
        ALTER TABLE "audit_event" ADD COLUMN "dataMismatch" BOOLEAN;
        CREATE TABLE "operation_qr" (
            "id" TEXT PRIMARY KEY, "operationId" TEXT NOT NULL, "registrationId" TEXT NOT NULL, "nonce" TEXT NOT NULL,
            "biometric" BOOLEAN NOT NULL, "createdAt" BIGINT NOT NULL, "_seq" BIGSERIAL);
        CREATE INDEX "operation_qr_operation" ON "operation_qr"("operationId", "registrationId");
        """

    /// The SQLite store's v8: callbacks, their events (numbered in commit order from
    /// `callback_event_number`, under the outbox's numbering lock) and deliveries.
    static let v9 = """
        CREATE TABLE "callback" (
            "id" TEXT PRIMARY KEY, "applicationId" TEXT NOT NULL, "url" TEXT NOT NULL, "events" TEXT NOT NULL,
            "sealedSecret" BYTEA NOT NULL, "afterSeq" BIGINT NOT NULL, "createdAt" BIGINT NOT NULL, "_seq" BIGSERIAL);
        CREATE INDEX "callback_application" ON "callback"("applicationId");
        CREATE SEQUENCE "callback_event_number";
        CREATE TABLE "callback_event" (
            "id" TEXT PRIMARY KEY, "seq" BIGINT NOT NULL, "type" TEXT NOT NULL, "applicationId" TEXT, "createdAt" BIGINT NOT NULL,
            "data" BYTEA NOT NULL, "fannedOut" BOOLEAN NOT NULL, "_seq" BIGSERIAL);
        CREATE INDEX "callback_event_fan_out" ON "callback_event"("fannedOut", "seq");
        CREATE TABLE "callback_delivery" (
            "id" TEXT PRIMARY KEY, "callbackId" TEXT NOT NULL, "eventId" TEXT NOT NULL, "eventSeq" BIGINT NOT NULL,
            "type" TEXT NOT NULL, "status" TEXT NOT NULL, "attempts" BIGINT NOT NULL, "lastAttemptAt" BIGINT, "lastStatusCode" BIGINT,
            "lastError" TEXT, "nextAttemptAt" BIGINT, "leaseUntil" BIGINT, "createdAt" BIGINT NOT NULL, "_seq" BIGSERIAL);
        CREATE INDEX "callback_delivery_due" ON "callback_delivery"("status", "nextAttemptAt");
        CREATE INDEX "callback_delivery_callback" ON "callback_delivery"("callbackId", "status");
        CREATE INDEX "callback_delivery_event" ON "callback_delivery"("eventId");
        """

    /// What read sets need (no SQLite counterpart: SQLite reads as the body asks): a phone's
    /// transaction reads the activations it opened, by caller; and a check a transaction defers to
    /// its COMMIT (`PostgresTransaction.noneMatch`) fails it with SQLSTATE LK001 when a row is there,
    /// so the body runs again, asking first.
    static let v10 = """
        CREATE INDEX "activation_by_caller" ON "activation"("caller");
        CREATE FUNCTION latchkey_require_none(present BOOLEAN) RETURNS VOID LANGUAGE plpgsql AS $$
        BEGIN
            IF present THEN
                RAISE EXCEPTION 'a row the transaction counted on being absent is there' USING ERRCODE = 'LK001';
            END IF;
        END $$;
        """

    /// Offline approval: the ECDH shared secrets of a registration's server key with the phone's
    /// keys, sealed beside it (`ServerKeyAgreements`), so that checking a code agrees no key.
    static let v11 = """
        ALTER TABLE "registration_key" ADD COLUMN "sealedAgreements" BYTEA;
        """

    /// Onboarding processes still waiting for their OTP, found by the clock that fails them 3 h after their start.
    static let v12 = """
        CREATE INDEX "onboarding_process_due" ON "onboarding_process"("status", "closed", "createdAt");
        """

    /// What `forgetExpiredRows` forgets by time, found by it; and the first process waiting for its
    /// OTP found in row order without sorting every waiting one.
    static let v13 = """
        CREATE INDEX "rate_event_age" ON "rate_event"("scope", "at");
        CREATE INDEX "reset_code_expiry" ON "reset_code"("expiresAt");
        CREATE INDEX "challenge_expiry" ON "challenge"("expiresAt");
        CREATE INDEX "onboarding_process_waiting" ON "onboarding_process"("status", "closed", "_seq");
        """

    /// Which key the database was first used with (`StoreKeyRecord`): a process given another `--key-file` is refused.
    static let v14 = """
        CREATE TABLE "store_key" ("id" TEXT PRIMARY KEY, "keyCheck" TEXT NOT NULL, "createdAt" BIGINT NOT NULL, "_seq" BIGSERIAL);
        """

    /// When a callback delivery's last attempt began, to the millisecond: a retry another process takes begins no sooner than its delay.
    static let v15 = """
        ALTER TABLE "callback_delivery" ADD COLUMN "lastAttemptStartedMilliseconds" BIGINT;
        """

    /// Ended sessions and used tokens, found by `forgetExpiredRows`.
    static let v17 = """
        CREATE INDEX "user_session_expiry" ON "user_session"("expiresAt");
        CREATE INDEX "token_used" ON "token"("used", "expiresAt");
        """

    /// What a store the release before wrote keeps that this version must read otherwise (the SQLite store's v16).
    ///
    /// The simulated phones' secret items it kept in clear, and the RP id of the passkeys it registered. Only where v6a noted that
    /// release's store, and the note goes.
    static let v16 = """
        DO $$ BEGIN
            IF to_regclass('"release_before_upgrade"') IS NOT NULL THEN
                UPDATE "passkey" SET "rpId" = NULL WHERE "aaguid" IS NOT NULL;
                UPDATE "device_item" SET "name" = 'unsealed/' || "name" WHERE "name" IN (\(sealedDeviceItems));
                UPDATE "device_backup_item" SET "name" = 'unsealed/' || "name" WHERE "name" IN (\(sealedDeviceItems));
                DROP TABLE "release_before_upgrade";
            END IF;
        END $$;
        """

    /// The names of the simulated phone's items that are kept sealed, as SQL text literals.
    static let sealedDeviceItems = """
        'activation.possessionKey', 'activation.pinMaskedKey', 'activation.touchIdKey', 'activation.faceIdKey', 'activation.pending', \
        'recovery.maskedKey', 'passkeys.synced', 'passkeys.deviceBound'
        """
}
