PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
INSERT INTO grdb_migrations VALUES('v1');
INSERT INTO grdb_migrations VALUES('v2-byte-blobs');
INSERT INTO grdb_migrations VALUES('v3-devices-outside');
INSERT INTO grdb_migrations VALUES('v4-challenge-caller');
INSERT INTO grdb_migrations VALUES('v5-webauthn');
CREATE TABLE server_config (
    id TEXT PRIMARY KEY NOT NULL, gracePeriodSeconds INTEGER NOT NULL,
    insecureWindowSeconds INTEGER NOT NULL, sessionLifetimeSeconds INTEGER NOT NULL);
CREATE TABLE audit_event (
    id TEXT PRIMARY KEY NOT NULL, at INTEGER NOT NULL, type TEXT NOT NULL,
    userId TEXT, registrationId TEXT, deviceId TEXT, detail TEXT, activationName TEXT, installationId TEXT);
INSERT INTO audit_event VALUES('evt_vnq5gqt3p6l5l3m4',1795967344,'userCreated','alice',NULL,NULL,NULL,NULL,NULL);
INSERT INTO audit_event VALUES('evt_rtd3aje6efnhinvv',1795967344,'activationCodeCreated','alice',NULL,NULL,'default',NULL,NULL);
INSERT INTO audit_event VALUES('evt_h3eayg5lbbym73fn',1795967344,'activationStarted','alice',NULL,'phone',NULL,NULL,NULL);
INSERT INTO audit_event VALUES('evt_tgec2gm5nzfq2a5d',1795967344,'activationCompleted','alice','reg_l5znj6ebz5et4tpbvavl4bopsy','phone','pin',NULL,NULL);
INSERT INTO audit_event VALUES('evt_cur2gpwkgz4yj3qb',1795967344,'authenticationSucceeded','alice','reg_l5znj6ebz5et4tpbvavl4bopsy','phone','pin',NULL,NULL);
INSERT INTO audit_event VALUES('evt_coa3mvhz5d7o6d4h',1795967344,'tokenIssued','alice','reg_l5znj6ebz5et4tpbvavl4bopsy',NULL,'addOrUpdateRecovery',NULL,NULL);
INSERT INTO audit_event VALUES('evt_dmudlgl4z4ysw5n3',1795967344,'tokenUsed','alice','reg_l5znj6ebz5et4tpbvavl4bopsy',NULL,'addOrUpdateRecovery',NULL,NULL);
INSERT INTO audit_event VALUES('evt_sssflc66b45df6ip',1795967344,'recoveryCodeSet','alice','reg_l5znj6ebz5et4tpbvavl4bopsy','phone',NULL,NULL,NULL);
INSERT INTO audit_event VALUES('evt_42yqmsdb4aejftrd',1795967344,'loginSucceeded','alice',NULL,NULL,NULL,NULL,NULL);
INSERT INTO audit_event VALUES('evt_vktq5wlreyyrqdit',1795967344,'passkeyCreated','alice',NULL,NULL,'3uk9BDtn-aWZi9dQftHAemnDHxQ',NULL,NULL);
CREATE TABLE rate_event (id TEXT PRIMARY KEY NOT NULL, scope TEXT NOT NULL, subject TEXT NOT NULL, at INTEGER NOT NULL);
CREATE TABLE application (
    id TEXT PRIMARY KEY NOT NULL, activationCodeLength INTEGER NOT NULL, activationCodeType TEXT NOT NULL,
    activationCodeTtlSeconds INTEGER NOT NULL, pinCodeType TEXT NOT NULL, pinCodeLengthMin INTEGER NOT NULL,
    pinCodeLengthMax INTEGER NOT NULL, maxFailedAttempts INTEGER NOT NULL, authMethods TEXT NOT NULL,
    addOrUpdateAllowedBy TEXT NOT NULL, tokenTtlSeconds INTEGER NOT NULL, redirectUrlPrefixes TEXT NOT NULL, passkeyRpId TEXT, passkeyRpName TEXT, passkeyOrigins TEXT, passkeyUserVerification TEXT);
CREATE TABLE user (
    id TEXT PRIMARY KEY NOT NULL, email TEXT, emailKey TEXT UNIQUE, phoneNumber TEXT UNIQUE,
    passwordHash BLOB, passwordSalt BLOB, birthDate TEXT, attributes TEXT, createdAt INTEGER NOT NULL, loginName TEXT, passkeyUserHandle BLOB);
INSERT INTO user VALUES('alice','alice@example.com','alice@example.com',NULL,X'3fdb46507e5cbfb8980a2f2fe17ad8aef61ba985c9095f902ce97e9529a6e703',X'368f4d9be1ffbf58587ae0fcc420a8db',NULL,NULL,1795967344,NULL,X'15f6bf55e28208ca58c7714bba82dc1e7a1ce0b6d98926ba38be57e6a41e5f02');
CREATE TABLE passkey (id TEXT PRIMARY KEY NOT NULL, userId TEXT NOT NULL, friendlyName TEXT NOT NULL, createdAt INTEGER NOT NULL, publicKey BLOB, algorithm INTEGER, signCount INTEGER NOT NULL DEFAULT 0, backupEligible INTEGER NOT NULL DEFAULT 0, backedUp INTEGER NOT NULL DEFAULT 0, transports TEXT NOT NULL DEFAULT '', aaguid TEXT, lastUsedAt INTEGER);
INSERT INTO passkey VALUES('3uk9BDtn-aWZi9dQftHAemnDHxQ','alice','Passkey',1795967344,X'a50102032620012158207e0ae74d7d90bd9f094a1021d9f796e300422b67ff192a4ceca1d7e155bab36322582057c9fe87d592827aebb160d2bf70cc7eda13d0dd6f10440b52be167f3d233b44',-7,0,1,1,replace('hybrid\ninternal','\n',char(10)),'00000000-0000-0000-0000-000000000000',NULL);
CREATE TABLE activation_code (
    id TEXT PRIMARY KEY NOT NULL, codeHash TEXT NOT NULL, userId TEXT NOT NULL, applicationId TEXT NOT NULL,
    expiresAt INTEGER NOT NULL, boundDeviceId TEXT, consumed BOOLEAN NOT NULL, createdAt INTEGER NOT NULL);
INSERT INTO activation_code VALUES('act_btp7ta3bztbzf6rx','6aa71b97516f9b44044b0a1310992403bd2b84101838a66417ed96d6f0dd7cfa','alice','default',1796053744,'device:phone',1,1795967344);
CREATE TABLE registration (
    id TEXT PRIMARY KEY NOT NULL, userId TEXT NOT NULL, applicationId TEXT NOT NULL, deviceId TEXT NOT NULL,
    state TEXT NOT NULL, authMethods TEXT NOT NULL, failedAttempts INTEGER NOT NULL, lastAttempt INTEGER,
    possessionPublicKey BLOB NOT NULL, pinPublicKey BLOB, touchIdPublicKey BLOB, faceIdPublicKey BLOB,
    recoveryPublicKey BLOB, recoveryFailedAttempts INTEGER NOT NULL, keyGeneration INTEGER NOT NULL,
    signCounter INTEGER NOT NULL, createdAt INTEGER NOT NULL, name TEXT);
INSERT INTO registration VALUES('reg_l5znj6ebz5et4tpbvavl4bopsy','alice','default','device:phone','active','device,pin',0,1795967344,X'046696fa01d95ccf61d83998b78605ecabf54f6d1f312aa6ac992589bad7efc60df727ca8182a02403e5e83bf4161edcb01b6ed57929456510fd866b9b463101bc',X'0499652bf5e3dd3e99d9712a3a430857410c56334d9a84858e10a43dca1bf219793056930b3db55b89cd10fbfdd987845aceeba6278bc4dcec88fe988972393c90',NULL,NULL,X'047ea19110459d994afdc5d6d9b2586971db8e96211dace49fa0dac8d4d027e5d939e08e29b108a7c72d4b3dd8af9fcbd8ff99f5a64aea509615000d991315fee2',0,1,0,1795967344,NULL);
CREATE TABLE pushed_authentication (
    id TEXT PRIMARY KEY NOT NULL, registrationId TEXT NOT NULL, contextTitle TEXT, contextContent TEXT,
    contextMIME TEXT, status TEXT NOT NULL, expiresAt INTEGER NOT NULL, decidedAt INTEGER, createdAt INTEGER NOT NULL);
CREATE TABLE token (
    id TEXT PRIMARY KEY NOT NULL, registrationId TEXT NOT NULL, purpose TEXT NOT NULL, keyGeneration INTEGER NOT NULL,
    expiresAt INTEGER NOT NULL, used BOOLEAN NOT NULL, createdAt INTEGER NOT NULL);
INSERT INTO token VALUES('7f66f17a5c9b1da02d4c417d421388d74b9966f1d3d270378aaf1c9f710c0abe','reg_l5znj6ebz5et4tpbvavl4bopsy','addOrUpdateRecovery',1,1795967644,1,1795967344);
CREATE TABLE onboarding_process (
    id TEXT PRIMARY KEY NOT NULL, deviceId TEXT NOT NULL, userId TEXT, applicationId TEXT NOT NULL, channel TEXT,
    address TEXT, otpHash TEXT, otpExpiresAt INTEGER, lastSentAt INTEGER, wrongOtps INTEGER NOT NULL,
    status TEXT NOT NULL, canRestoreSession BOOLEAN NOT NULL, instance TEXT NOT NULL, otpAccepted BOOLEAN NOT NULL,
    registrationId TEXT, closed BOOLEAN NOT NULL, createdAt INTEGER NOT NULL);
CREATE TABLE account_recovery (
    id TEXT PRIMARY KEY NOT NULL, state INTEGER NOT NULL, reason INTEGER NOT NULL,
    startTime INTEGER NOT NULL, endTime INTEGER);
CREATE TABLE user_session (
    id TEXT PRIMARY KEY NOT NULL, userId TEXT NOT NULL, createdAt INTEGER NOT NULL, expiresAt INTEGER NOT NULL);
INSERT INTO user_session VALUES('ba6b1a1a9abaa50f0ddd68895c5333b27bf3a361d491aa7cde9a7c8c57462cf0','alice',1795967344,1798559344);
CREATE TABLE reset_code (
    id TEXT PRIMARY KEY NOT NULL, subject TEXT NOT NULL, userId TEXT NOT NULL, kind TEXT NOT NULL,
    codeHash TEXT NOT NULL, expiresAt INTEGER NOT NULL, wrongTries INTEGER NOT NULL, consumed BOOLEAN NOT NULL,
    createdAt INTEGER NOT NULL);
CREATE TABLE device (
    id TEXT PRIMARY KEY NOT NULL, biometry TEXT NOT NULL, iCloudKeychain BOOLEAN NOT NULL, name TEXT,
    biometricOutcome TEXT NOT NULL, createdAt INTEGER NOT NULL);
INSERT INTO device VALUES('phone','faceId',1,NULL,'match',1795967344);
CREATE TABLE device_item (
    id TEXT PRIMARY KEY NOT NULL, deviceId TEXT NOT NULL, name TEXT NOT NULL, value BLOB NOT NULL,
    thisDeviceOnly BOOLEAN NOT NULL);
INSERT INTO device_item VALUES('phone/activation.registrationId','phone','activation.registrationId',X'7265675f6c357a6e6a3665627a356574347470627661766c34626f707379',1);
INSERT INTO device_item VALUES('phone/activation.possessionKey','phone','activation.possessionKey',X'4ee2f9d10adf662898ca34b43f512eba53273e6ad443cfae8fb7db6d95e348a7',1);
INSERT INTO device_item VALUES('phone/activation.pinSalt','phone','activation.pinSalt',X'8dbd46bbf369adc1c90b28356b8b302b',1);
INSERT INTO device_item VALUES('phone/activation.pinMaskedKey','phone','activation.pinMaskedKey',X'a2ca27527c9fe8026321af6d016be786bd7b3b40ded41f015c772b9764a79afb',1);
INSERT INTO device_item VALUES('phone/activation.methods','phone','activation.methods',X'6465766963652c70696e',1);
INSERT INTO device_item VALUES('phone/activation.lastMethod','phone','activation.lastMethod',X'70696e',1);
INSERT INTO device_item VALUES('phone/recovery.registrationId','phone','recovery.registrationId',X'7265675f6c357a6e6a3665627a356574347470627661766c34626f707379',0);
INSERT INTO device_item VALUES('phone/recovery.salt','phone','recovery.salt',X'9b36dac6f9b0150dfb8deaf7e76f86e7',0);
INSERT INTO device_item VALUES('phone/recovery.maskedKey','phone','recovery.maskedKey',X'064cb256af9406613f31f338ad47cd387b7a314d64b5d2d41aa203075a3bb5c9',0);
INSERT INTO device_item VALUES('phone/passkeys.synced','phone','passkeys.synced',X'81a70154dee93d043b67f9a5998bd7507ed1c07a69c31f1402696c6f63616c686f737403582015f6bf55e28208ca58c7714bba82dc1e7a1ce0b6d98926ba38be57e6a41e5f020426055820081d7b2307a45918b6ae0e0e9d6cb92ad26f9996409ba667d49e58284109d07e0600071a6b0c4970',0);
CREATE TABLE device_backup (id TEXT PRIMARY KEY NOT NULL, deviceId TEXT NOT NULL, kind TEXT NOT NULL, createdAt INTEGER NOT NULL);
INSERT INTO device_backup VALUES('bak_iyclxbodtjbb7cng','phone','iCloud',1795967344);
CREATE TABLE device_backup_item (id TEXT PRIMARY KEY NOT NULL, backupId TEXT NOT NULL, name TEXT NOT NULL, value BLOB NOT NULL);
INSERT INTO device_backup_item VALUES('bak_iyclxbodtjbb7cng/recovery.registrationId','bak_iyclxbodtjbb7cng','recovery.registrationId',X'7265675f6c357a6e6a3665627a356574347470627661766c34626f707379');
INSERT INTO device_backup_item VALUES('bak_iyclxbodtjbb7cng/recovery.salt','bak_iyclxbodtjbb7cng','recovery.salt',X'9b36dac6f9b0150dfb8deaf7e76f86e7');
INSERT INTO device_backup_item VALUES('bak_iyclxbodtjbb7cng/recovery.maskedKey','bak_iyclxbodtjbb7cng','recovery.maskedKey',X'064cb256af9406613f31f338ad47cd387b7a314d64b5d2d41aa203075a3bb5c9');
CREATE TABLE activation (
    id TEXT PRIMARY KEY NOT NULL, codeId TEXT, processId TEXT, caller TEXT NOT NULL, challenge TEXT NOT NULL,
    expiresAt INTEGER NOT NULL, createdAt INTEGER NOT NULL);
CREATE TABLE challenge (
    id TEXT PRIMARY KEY NOT NULL, registrationId TEXT NOT NULL, purpose TEXT NOT NULL, challenge TEXT NOT NULL,
    contextHash TEXT NOT NULL, pushedAuthenticationId TEXT, tokenExpiresAt INTEGER, expiresAt INTEGER NOT NULL,
    createdAt INTEGER NOT NULL, caller TEXT);
CREATE TABLE passkey_ceremony (
    id TEXT PRIMARY KEY NOT NULL, kind TEXT NOT NULL, applicationId TEXT NOT NULL, userId TEXT,
    named INTEGER NOT NULL, challenge BLOB NOT NULL, expiresAt INTEGER NOT NULL, createdAt INTEGER NOT NULL);
CREATE INDEX audit_event_user ON audit_event(userId);
CREATE INDEX audit_event_registration ON audit_event(registrationId);
CREATE INDEX rate_event_subject ON rate_event(scope, subject, at);
CREATE INDEX passkey_user ON passkey(userId);
CREATE INDEX activation_code_hash ON activation_code(codeHash);
CREATE INDEX registration_user ON registration(userId, state);
CREATE INDEX pushed_authentication_registration ON pushed_authentication(registrationId, status);
CREATE INDEX token_registration ON token(registrationId);
CREATE INDEX onboarding_process_device ON onboarding_process(deviceId, closed);
CREATE INDEX onboarding_process_registration ON onboarding_process(registrationId);
CREATE INDEX account_recovery_due ON account_recovery(state, endTime);
CREATE INDEX user_session_user ON user_session(userId);
CREATE INDEX reset_code_subject ON reset_code(subject, consumed);
CREATE INDEX reset_code_user ON reset_code(userId);
CREATE INDEX device_item_device ON device_item(deviceId);
CREATE INDEX device_backup_item_backup ON device_backup_item(backupId);
CREATE INDEX activation_by_code ON activation(codeId);
CREATE INDEX challenge_registration ON challenge(registrationId, expiresAt);
CREATE UNIQUE INDEX user_login_name ON user(loginName);
CREATE INDEX passkey_ceremony_expiry ON passkey_ceremony(expiresAt);
COMMIT;
