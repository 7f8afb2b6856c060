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
INSERT INTO audit_event VALUES('evt_w5qfid7tb7yzgk5l',1795967646,'userCreated','alice',NULL,NULL,NULL,NULL,NULL);
INSERT INTO audit_event VALUES('evt_nhpzuamfuuvkgsdu',1795967646,'activationCodeCreated','alice',NULL,NULL,'default',NULL,NULL);
INSERT INTO audit_event VALUES('evt_mycdhqaibdelt3hw',1795967646,'activationStarted','alice',NULL,'phone',NULL,NULL,NULL);
INSERT INTO audit_event VALUES('evt_t7zkfgkuamn2e4v2',1795967646,'activationCompleted','alice','reg_6jrpzi7jfa6ucqzceyknz63dgw','phone','pin',NULL,NULL);
INSERT INTO audit_event VALUES('evt_qzpsvkrznekraohv',1795967646,'authenticationSucceeded','alice','reg_6jrpzi7jfa6ucqzceyknz63dgw','phone','pin',NULL,NULL);
INSERT INTO audit_event VALUES('evt_rqpagxe4uuktmutq',1795967646,'tokenIssued','alice','reg_6jrpzi7jfa6ucqzceyknz63dgw',NULL,'addOrUpdateRecovery',NULL,NULL);
INSERT INTO audit_event VALUES('evt_uzzzcyzx6e7jebvj',1795967646,'tokenUsed','alice','reg_6jrpzi7jfa6ucqzceyknz63dgw',NULL,'addOrUpdateRecovery',NULL,NULL);
INSERT INTO audit_event VALUES('evt_q54ec7ke6ywixkfz',1795967646,'recoveryCodeSet','alice','reg_6jrpzi7jfa6ucqzceyknz63dgw','phone',NULL,NULL,NULL);
INSERT INTO audit_event VALUES('evt_q7vzvyl2ak7yeqp6',1795967646,'loginSucceeded','alice',NULL,NULL,NULL,NULL,NULL);
INSERT INTO audit_event VALUES('evt_ekdrzhdzi4y4ca5v',1795967646,'passkeyCreated','alice',NULL,NULL,'wEqQLCYaytYaU8UjQqfR1_M9GE0',NULL,NULL);
INSERT INTO audit_event VALUES('evt_mzzsetwujoxw75rj',1795967646,'applicationConfigured',NULL,NULL,NULL,'bank',NULL,NULL);
INSERT INTO audit_event VALUES('evt_hlzjuhmvo3tuv2gr',1795967646,'passkeyCreated','alice',NULL,NULL,'iydvkLwKwWCeHfXboRFnPDQhlT8',NULL,NULL);
CREATE TABLE rate_event (id TEXT PRIMARY KEY NOT NULL, scope TEXT NOT NULL, subject TEXT NOT NULL, at INTEGER NOT NULL);
CREATE TABLE application (
    id TEXT PRIMARY KEY NOT NULL, activationCodeLength INTEGER NOT NULL, activationCodeType TEXT NOT NULL,
    activationCodeTtlSeconds INTEGER NOT NULL, pinCodeType TEXT NOT NULL, pinCodeLengthMin INTEGER NOT NULL,
    pinCodeLengthMax INTEGER NOT NULL, maxFailedAttempts INTEGER NOT NULL, authMethods TEXT NOT NULL,
    addOrUpdateAllowedBy TEXT NOT NULL, tokenTtlSeconds INTEGER NOT NULL, redirectUrlPrefixes TEXT NOT NULL, passkeyRpId TEXT, passkeyRpName TEXT, passkeyOrigins TEXT, passkeyUserVerification TEXT);
INSERT INTO application VALUES('bank',8,'numeric',86400,'numeric',4,8,5,'device,pin,touchId,faceId','device:;pin:pin,touchId,faceId;touchId:faceId;faceId:touchId',300,'app://','bank.example','Bank','https://bank.example','required');
CREATE TABLE user (
    id TEXT PRIMARY KEY NOT NULL, email TEXT, emailKey TEXT UNIQUE, phoneNumber TEXT UNIQUE,
    passwordHash BLOB, passwordSalt BLOB, birthDate TEXT, attributes TEXT, createdAt INTEGER NOT NULL, loginName TEXT, passkeyUserHandle BLOB);
INSERT INTO user VALUES('alice','alice@example.com','alice@example.com',NULL,X'9bef75383d75f2f432f90cbb7bb31b88961b8e0d6aa314eba8d82b2356fac89c',X'b8f4d351aec6f71df21c1c18ce6579da',NULL,NULL,1795967646,NULL,X'7df9bf701263545f1993e312bfc6ca13ff4df6e9842ed1faadf5c551016d977f');
CREATE TABLE passkey (id TEXT PRIMARY KEY NOT NULL, userId TEXT NOT NULL, friendlyName TEXT NOT NULL, createdAt INTEGER NOT NULL, publicKey BLOB, algorithm INTEGER, signCount INTEGER NOT NULL DEFAULT 0, backupEligible INTEGER NOT NULL DEFAULT 0, backedUp INTEGER NOT NULL DEFAULT 0, transports TEXT NOT NULL DEFAULT '', aaguid TEXT, lastUsedAt INTEGER);
INSERT INTO passkey VALUES('wEqQLCYaytYaU8UjQqfR1_M9GE0','alice','Passkey',1795967646,X'a501020326200121582057f9c486317b682b8af98350373c228071a4bbe8d147d1d36974eed043f62fcb2258205b8cd04befdbd6f307809dff712aea8833a67d8dafe3eca18e2e6b434d3f6c0d',-7,0,1,1,replace('hybrid\ninternal','\n',char(10)),'00000000-0000-0000-0000-000000000000',NULL);
INSERT INTO passkey VALUES('iydvkLwKwWCeHfXboRFnPDQhlT8','alice','Passkey',1795967646,X'a501020326200121582026fddd297d9aefca549e41a003cfcabe1f29d4720c46021f93dbab43e46e57f72258205bb6b1c308a9fae99840493a29570d17ea5b2bc2a773559a332eb320651b5458',-7,0,1,1,replace('hybrid\ninternal','\n',char(10)),'00000000-0000-0000-0000-000000000000',NULL);
CREATE TABLE activation_code (
    id TEXT PRIMARY KEY NOT NULL, codeHash TEXT NOT NULL, userId TEXT NOT NULL, applicationId TEXT NOT NULL,
    expiresAt INTEGER NOT NULL, boundDeviceId TEXT, consumed BOOLEAN NOT NULL, createdAt INTEGER NOT NULL);
INSERT INTO activation_code VALUES('act_nlvwk6loss2ojpda','e9a5d85996003c1b664b4462f136a8ea61211cda42c42d06024c1b3d303b033e','alice','default',1796054046,'device:phone',1,1795967646);
CREATE TABLE registration (
    id TEXT PRIMARY KEY NOT NULL, userId TEXT NOT NULL, applicationId TEXT NOT NULL, deviceId TEXT NOT NULL,
    state TEXT NOT NULL, authMethods TEXT NOT NULL, failedAttempts INTEGER NOT NULL, lastAttempt INTEGER,
    possessionPublicKey BLOB NOT NULL, pinPublicKey BLOB, touchIdPublicKey BLOB, faceIdPublicKey BLOB,
    recoveryPublicKey BLOB, recoveryFailedAttempts INTEGER NOT NULL, keyGeneration INTEGER NOT NULL,
    signCounter INTEGER NOT NULL, createdAt INTEGER NOT NULL, name TEXT);
INSERT INTO registration VALUES('reg_6jrpzi7jfa6ucqzceyknz63dgw','alice','default','device:phone','active','device,pin',0,1795967646,X'04ea55606a5c5c3ed8e1e71bd377d3f756779e473829f2ea46f129e6c683c6e0a88f43c719a1f5b7f78d48b39a3463df8f719f86562ee6cee273223013202104e4',X'04686493eac9457c7aa962c7dfc688d684bdb3070fa885049f093f4b17c929796401688d84287c471413fb5a3ab5139316d98197d5286c67774d048488bcd45225',NULL,NULL,X'04ea92c45703212fd5647ec111f244cd45bb11dde84d85ed4967ac479c952d581d45882b182d5fa7b7eb0582a26e1114a95e02af44b5eec4275a6c797ab755ef5f',0,1,0,1795967646,NULL);
CREATE TABLE pushed_authentication (
    id TEXT PRIMARY KEY NOT NULL, registrationId TEXT NOT NULL, contextTitle TEXT, contextContent TEXT,
    contextMIME TEXT, status TEXT NOT NULL, expiresAt INTEGER NOT NULL, decidedAt INTEGER, createdAt INTEGER NOT NULL);
CREATE TABLE token (
    id TEXT PRIMARY KEY NOT NULL, registrationId TEXT NOT NULL, purpose TEXT NOT NULL, keyGeneration INTEGER NOT NULL,
    expiresAt INTEGER NOT NULL, used BOOLEAN NOT NULL, createdAt INTEGER NOT NULL);
INSERT INTO token VALUES('ba3380d48c03b6b3fb3321f70cf98c9b3a3fbd6fb8f754dab3c4bbf67f235937','reg_6jrpzi7jfa6ucqzceyknz63dgw','addOrUpdateRecovery',1,1795967946,1,1795967646);
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
INSERT INTO user_session VALUES('9f0466251a7bf9daf333f2c718fb3080a76d37f0e4a88c18bb50f6f9d991c8d1','alice',1795967646,1798559646);
CREATE TABLE reset_code (
    id TEXT PRIMARY KEY NOT NULL, subject TEXT NOT NULL, userId TEXT NOT NULL, kind TEXT NOT NULL,
    codeHash TEXT NOT NULL, expiresAt INTEGER NOT NULL, wrongTries INTEGER NOT NULL, consumed BOOLEAN NOT NULL,
    createdAt INTEGER NOT NULL);
CREATE TABLE device (
    id TEXT PRIMARY KEY NOT NULL, biometry TEXT NOT NULL, iCloudKeychain BOOLEAN NOT NULL, name TEXT,
    biometricOutcome TEXT NOT NULL, createdAt INTEGER NOT NULL);
INSERT INTO device VALUES('phone','faceId',1,NULL,'match',1795967646);
CREATE TABLE device_item (
    id TEXT PRIMARY KEY NOT NULL, deviceId TEXT NOT NULL, name TEXT NOT NULL, value BLOB NOT NULL,
    thisDeviceOnly BOOLEAN NOT NULL);
INSERT INTO device_item VALUES('phone/activation.registrationId','phone','activation.registrationId',X'7265675f366a72707a69376a6661367563717a6365796b6e7a3633646777',1);
INSERT INTO device_item VALUES('phone/activation.possessionKey','phone','activation.possessionKey',X'4984223349eab4ef6da94c538f3212256a4ad2f1be9b8c209e42a65929489a89',1);
INSERT INTO device_item VALUES('phone/activation.pinSalt','phone','activation.pinSalt',X'3ce1f2fa3cd6acbbadcf61f73571c14e',1);
INSERT INTO device_item VALUES('phone/activation.pinMaskedKey','phone','activation.pinMaskedKey',X'4580c1e212b41b18bf379807a149c44b81f43569952c6771dda115230d6900e3',1);
INSERT INTO device_item VALUES('phone/activation.methods','phone','activation.methods',X'6465766963652c70696e',1);
INSERT INTO device_item VALUES('phone/activation.lastMethod','phone','activation.lastMethod',X'70696e',1);
INSERT INTO device_item VALUES('phone/recovery.registrationId','phone','recovery.registrationId',X'7265675f366a72707a69376a6661367563717a6365796b6e7a3633646777',0);
INSERT INTO device_item VALUES('phone/recovery.salt','phone','recovery.salt',X'43b6e7c76d92e73ecec9213504d169df',0);
INSERT INTO device_item VALUES('phone/recovery.maskedKey','phone','recovery.maskedKey',X'ebdb575c2d73084c7a249e7d2935f67173679035601f10ccdddd9fdf0489b41d',0);
INSERT INTO device_item VALUES('phone/passkeys.synced','phone','passkeys.synced',X'82a70154c04a902c261acad61a53c52342a7d1d7f33d184d02696c6f63616c686f73740358207df9bf701263545f1993e312bfc6ca13ff4df6e9842ed1faadf5c551016d977f04260558204b2a79b6aab3dabcad20a8884ecbc00ee9baaaaf113bb09256acd148410f564c0600071a6b0c4a9ea701548b276f90bc0ac1609e1df5dba111673c3421953f026c62616e6b2e6578616d706c650358207df9bf701263545f1993e312bfc6ca13ff4df6e9842ed1faadf5c551016d977f0426055820689f2510a74b0638658adafa7f1c440c9d869bc5eea218e888245dd50cee4ce10600071a6b0c4a9e',0);
CREATE TABLE device_backup (id TEXT PRIMARY KEY NOT NULL, deviceId TEXT NOT NULL, kind TEXT NOT NULL, createdAt INTEGER NOT NULL);
INSERT INTO device_backup VALUES('bak_ygtngkminfqcrlzs','phone','iCloud',1795967646);
CREATE TABLE device_backup_item (id TEXT PRIMARY KEY NOT NULL, backupId TEXT NOT NULL, name TEXT NOT NULL, value BLOB NOT NULL);
INSERT INTO device_backup_item VALUES('bak_ygtngkminfqcrlzs/recovery.registrationId','bak_ygtngkminfqcrlzs','recovery.registrationId',X'7265675f366a72707a69376a6661367563717a6365796b6e7a3633646777');
INSERT INTO device_backup_item VALUES('bak_ygtngkminfqcrlzs/recovery.salt','bak_ygtngkminfqcrlzs','recovery.salt',X'43b6e7c76d92e73ecec9213504d169df');
INSERT INTO device_backup_item VALUES('bak_ygtngkminfqcrlzs/recovery.maskedKey','bak_ygtngkminfqcrlzs','recovery.maskedKey',X'ebdb575c2d73084c7a249e7d2935f67173679035601f10ccdddd9fdf0489b41d');
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
