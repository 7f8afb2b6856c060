// Each record's row, coded by hand as GRDB's records are (`FetchableRecord`, `PersistableRecord`
// with `Columns`): every column of its table in table order (`Columns`, which filters name too),
// read in that order by `init(row:)` and written by `encode(into:)`. `ColumnsTests` checks each
// list against its table and its record's properties, and `RowCodingTests` that every record comes
// back as it was written.

extension ServerConfigRecord {
    enum Columns: String, CaseIterable { case id, gracePeriodSeconds, insecureWindowSeconds, sessionLifetimeSeconds }
    static let columns = Columns.allCases.map(\.rawValue)

    init(row: inout RowReader) throws {
        try self.init(id: row.text(), gracePeriodSeconds: row.integer(), insecureWindowSeconds: row.integer(), sessionLifetimeSeconds: row.integer())
    }

    func encode(into row: inout RowWriter) { row.put(id, gracePeriodSeconds, insecureWindowSeconds, sessionLifetimeSeconds) }
}

extension AuditRecord {
    public enum Columns: String, CaseIterable {
        case id, at, type, userId, registrationId, deviceId, detail, activationName, installationId, operationId, dataMismatch
    }
    public static let columns = Columns.allCases.map(\.rawValue)

    public init(row: inout RowReader) throws {
        try self.init(
            id: row.text(), at: row.integer(), type: row.text(), userId: row.optionalText(), registrationId: row.optionalText(),
            deviceId: row.optionalText(), detail: row.optionalText(), activationName: row.optionalText(), installationId: row.optionalText(),
            operationId: row.optionalText(), dataMismatch: row.optionalFlag())
    }

    public func encode(into row: inout RowWriter) {
        row.put(id, at, type, userId, registrationId, deviceId, detail, activationName, installationId, operationId, dataMismatch)
    }
}

extension RateEventRecord {
    enum Columns: String, CaseIterable { case id, scope, subject, at }
    static let columns = Columns.allCases.map(\.rawValue)

    init(row: inout RowReader) throws {
        try self.init(id: row.text(), scope: row.text(), subject: row.text(), at: row.integer())
    }

    func encode(into row: inout RowWriter) { row.put(id, scope, subject, at) }
}

extension ApplicationRecord {
    enum Columns: String, CaseIterable {
        case id, activationCodeLength, activationCodeType, activationCodeTtlSeconds, pinCodeType, pinCodeLengthMin, pinCodeLengthMax,
            maxFailedAttempts, authMethods, addOrUpdateAllowedBy, tokenTtlSeconds, redirectUrlPrefixes, passkeyRpId, passkeyRpName, passkeyOrigins,
            passkeyUserVerification
    }
    static let columns = Columns.allCases.map(\.rawValue)

    init(row: inout RowReader) throws {
        try self.init(
            id: row.text(), activationCodeLength: row.int(), activationCodeType: row.text(), activationCodeTtlSeconds: row.integer(),
            pinCodeType: row.text(), pinCodeLengthMin: row.int(), pinCodeLengthMax: row.int(), maxFailedAttempts: row.int(), authMethods: row.text(),
            addOrUpdateAllowedBy: row.text(), tokenTtlSeconds: row.integer(), redirectUrlPrefixes: row.text(), passkeyRpId: row.optionalText(),
            passkeyRpName: row.optionalText(), passkeyOrigins: row.optionalText(), passkeyUserVerification: row.optionalText())
    }

    func encode(into row: inout RowWriter) {
        row.put(
            id, activationCodeLength, activationCodeType, activationCodeTtlSeconds, pinCodeType, pinCodeLengthMin, pinCodeLengthMax,
            maxFailedAttempts, authMethods, addOrUpdateAllowedBy, tokenTtlSeconds, redirectUrlPrefixes, passkeyRpId, passkeyRpName, passkeyOrigins,
            passkeyUserVerification)
    }
}

extension UserRecord {
    enum Columns: String, CaseIterable {
        case id, email, emailKey, phoneNumber, passwordHash, passwordSalt, birthDate, attributes, createdAt, loginName, passkeyUserHandle
    }
    static let columns = Columns.allCases.map(\.rawValue)

    init(row: inout RowReader) throws {
        try self.init(
            id: row.text(), email: row.optionalText(), emailKey: row.optionalText(), phoneNumber: row.optionalText(),
            passwordHash: row.optionalBytes(), passwordSalt: row.optionalBytes(), birthDate: row.optionalText(), attributes: row.optionalText(),
            createdAt: row.integer(), loginName: row.optionalText(), passkeyUserHandle: row.optionalBytes())
    }

    func encode(into row: inout RowWriter) {
        row.put(id, email, emailKey, phoneNumber, passwordHash, passwordSalt, birthDate, attributes, createdAt, loginName, passkeyUserHandle)
    }
}

extension PasskeyRecord {
    enum Columns: String, CaseIterable {
        case id, userId, friendlyName, createdAt, publicKey, algorithm, signCount, backupEligible, backedUp, transports, aaguid, lastUsedAt, rpId,
            backupEligibleKnown
    }
    static let columns = Columns.allCases.map(\.rawValue)

    init(row: inout RowReader) throws {
        try self.init(
            id: row.text(), userId: row.text(), friendlyName: row.text(), createdAt: row.integer(), publicKey: row.optionalBytes(),
            algorithm: row.optionalInteger(), signCount: row.integer(), backupEligible: row.flag(), backedUp: row.flag(), transports: row.text(),
            aaguid: row.optionalText(), lastUsedAt: row.optionalInteger(), rpId: row.optionalText(), backupEligibleKnown: row.flag())
    }

    func encode(into row: inout RowWriter) {
        row.put(
            id, userId, friendlyName, createdAt, publicKey, algorithm, signCount, backupEligible, backedUp, transports, aaguid, lastUsedAt, rpId,
            backupEligibleKnown)
    }
}

extension PasskeyCeremonyRecord {
    enum Columns: String, CaseIterable { case id, kind, applicationId, userId, named, challenge, expiresAt, createdAt, openedBy, operationId, nonce }
    static let columns = Columns.allCases.map(\.rawValue)

    init(row: inout RowReader) throws {
        try self.init(
            id: row.text(), kind: row.text(), applicationId: row.text(), userId: row.optionalText(), named: row.flag(), challenge: row.bytes(),
            expiresAt: row.integer(), createdAt: row.integer(), openedBy: row.optionalText(), operationId: row.optionalText(),
            nonce: row.optionalText())
    }

    func encode(into row: inout RowWriter) {
        row.put(id, kind, applicationId, userId, named, challenge, expiresAt, createdAt, openedBy, operationId, nonce)
    }
}

extension AccountRecoveryRecord {
    enum Columns: String, CaseIterable { case id, state, reason, startTime, endTime }
    static let columns = Columns.allCases.map(\.rawValue)

    init(row: inout RowReader) throws {
        try self.init(
            id: row.text(), state: row.value(AccountRecoveryState.self), reason: row.int(), startTime: row.integer(), endTime: row.optionalInteger())
    }

    func encode(into row: inout RowWriter) { row.put(id, state.rawValue, reason, startTime, endTime) }
}

extension UserSessionRecord {
    enum Columns: String, CaseIterable { case id, userId, createdAt, expiresAt }
    static let columns = Columns.allCases.map(\.rawValue)

    init(row: inout RowReader) throws {
        try self.init(id: row.text(), userId: row.text(), createdAt: row.integer(), expiresAt: row.integer())
    }

    func encode(into row: inout RowWriter) { row.put(id, userId, createdAt, expiresAt) }
}

extension ResetCodeRecord {
    enum Columns: String, CaseIterable { case id, subject, userId, kind, codeHash, expiresAt, wrongTries, consumed, createdAt, applicationId }
    static let columns = Columns.allCases.map(\.rawValue)

    init(row: inout RowReader) throws {
        try self.init(
            id: row.text(), subject: row.text(), userId: row.text(), kind: row.text(), codeHash: row.text(), expiresAt: row.integer(),
            wrongTries: row.int(), consumed: row.flag(), createdAt: row.integer(), applicationId: row.optionalText())
    }

    func encode(into row: inout RowWriter) { row.put(id, subject, userId, kind, codeHash, expiresAt, wrongTries, consumed, createdAt, applicationId) }
}

extension ActivationCodeRecord {
    enum Columns: String, CaseIterable { case id, codeHash, userId, applicationId, expiresAt, boundDeviceId, consumed, createdAt }
    static let columns = Columns.allCases.map(\.rawValue)

    init(row: inout RowReader) throws {
        try self.init(
            id: row.text(), codeHash: row.text(), userId: row.text(), applicationId: row.text(), expiresAt: row.integer(),
            boundDeviceId: row.optionalText(), consumed: row.flag(), createdAt: row.integer())
    }

    func encode(into row: inout RowWriter) { row.put(id, codeHash, userId, applicationId, expiresAt, boundDeviceId, consumed, createdAt) }
}

extension RegistrationRecord {
    enum Columns: String, CaseIterable {
        case id, userId, applicationId, deviceId, state, authMethods, failedAttempts, lastAttempt, possessionPublicKey, pinPublicKey,
            touchIdPublicKey, faceIdPublicKey, recoveryPublicKey, recoveryFailedAttempts, keyGeneration, signCounter, createdAt, name
    }
    static let columns = Columns.allCases.map(\.rawValue)

    init(row: inout RowReader) throws {
        try self.init(
            id: row.text(), userId: row.text(), applicationId: row.text(), deviceId: row.text(), state: row.text(), authMethods: row.text(),
            failedAttempts: row.int(), lastAttempt: row.optionalInteger(), possessionPublicKey: row.bytes(), pinPublicKey: row.optionalBytes(),
            touchIdPublicKey: row.optionalBytes(), faceIdPublicKey: row.optionalBytes(), recoveryPublicKey: row.optionalBytes(),
            recoveryFailedAttempts: row.int(), keyGeneration: row.int(), signCounter: row.integer(), createdAt: row.integer(),
            name: row.optionalText())
    }

    func encode(into row: inout RowWriter) {
        row.put(
            id, userId, applicationId, deviceId, state, authMethods, failedAttempts, lastAttempt, possessionPublicKey, pinPublicKey, touchIdPublicKey,
            faceIdPublicKey, recoveryPublicKey, recoveryFailedAttempts, keyGeneration, signCounter, createdAt, name)
    }
}

extension PushedAuthenticationRecord {
    enum Columns: String, CaseIterable { case id, registrationId, contextTitle, contextContent, contextMIME, status, expiresAt, decidedAt, createdAt }
    static let columns = Columns.allCases.map(\.rawValue)

    init(row: inout RowReader) throws {
        try self.init(
            id: row.text(), registrationId: row.text(), contextTitle: row.optionalText(), contextContent: row.optionalText(),
            contextMIME: row.optionalText(), status: row.text(), expiresAt: row.integer(), decidedAt: row.optionalInteger(), createdAt: row.integer())
    }

    func encode(into row: inout RowWriter) {
        row.put(id, registrationId, contextTitle, contextContent, contextMIME, status, expiresAt, decidedAt, createdAt)
    }
}

extension TokenRecord {
    enum Columns: String, CaseIterable { case id, registrationId, purpose, keyGeneration, expiresAt, used, createdAt }
    static let columns = Columns.allCases.map(\.rawValue)

    init(row: inout RowReader) throws {
        try self.init(
            id: row.text(), registrationId: row.text(), purpose: row.text(), keyGeneration: row.int(), expiresAt: row.integer(), used: row.flag(),
            createdAt: row.integer())
    }

    func encode(into row: inout RowWriter) { row.put(id, registrationId, purpose, keyGeneration, expiresAt, used, createdAt) }
}

extension OnboardingProcessRecord {
    enum Columns: String, CaseIterable {
        case id, deviceId, userId, applicationId, channel, address, otpHash, otpExpiresAt, lastSentAt, wrongOtps, status, canRestoreSession, instance,
            otpAccepted, registrationId, closed, createdAt
    }
    static let columns = Columns.allCases.map(\.rawValue)

    init(row: inout RowReader) throws {
        try self.init(
            id: row.text(), deviceId: row.text(), userId: row.optionalText(), applicationId: row.text(), channel: row.optionalText(),
            address: row.optionalText(), otpHash: row.optionalText(), otpExpiresAt: row.optionalInteger(), lastSentAt: row.optionalInteger(),
            wrongOtps: row.int(), status: row.text(), canRestoreSession: row.flag(), instance: row.text(), otpAccepted: row.flag(),
            registrationId: row.optionalText(), closed: row.flag(), createdAt: row.integer())
    }

    func encode(into row: inout RowWriter) {
        row.put(
            id, deviceId, userId, applicationId, channel, address, otpHash, otpExpiresAt, lastSentAt, wrongOtps, status, canRestoreSession, instance,
            otpAccepted, registrationId, closed, createdAt)
    }
}

extension ActivationRecord {
    enum Columns: String, CaseIterable { case id, codeId, processId, caller, challenge, expiresAt, createdAt }
    static let columns = Columns.allCases.map(\.rawValue)

    init(row: inout RowReader) throws {
        try self.init(
            id: row.text(), codeId: row.optionalText(), processId: row.optionalText(), caller: row.text(), challenge: row.text(),
            expiresAt: row.integer(), createdAt: row.integer())
    }

    func encode(into row: inout RowWriter) { row.put(id, codeId, processId, caller, challenge, expiresAt, createdAt) }
}

extension ChallengeRecord {
    enum Columns: String, CaseIterable {
        case id, registrationId, purpose, challenge, contextHash, pushedAuthenticationId, tokenExpiresAt, expiresAt, createdAt, caller,
            operationId
    }
    static let columns = Columns.allCases.map(\.rawValue)

    init(row: inout RowReader) throws {
        try self.init(
            id: row.text(), registrationId: row.text(), purpose: row.text(), challenge: row.text(), contextHash: row.text(),
            pushedAuthenticationId: row.optionalText(), tokenExpiresAt: row.optionalInteger(), expiresAt: row.integer(), createdAt: row.integer(),
            caller: row.optionalText(), operationId: row.optionalText())
    }

    func encode(into row: inout RowWriter) {
        row.put(
            id, registrationId, purpose, challenge, contextHash, pushedAuthenticationId, tokenExpiresAt, expiresAt, createdAt, caller, operationId)
    }
}
