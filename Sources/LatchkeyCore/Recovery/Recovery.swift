import LatchkeyContract

extension ServerSession {
    /// Checks a registration may change its recovery, and the token that authorises it.
    /// - Throws: `notFound` (registration), the state answers.
    private func changingRegistration(_ registrationId: String) throws -> RegistrationRecord {
        let registration = try core.registration(tx, registrationId)
        try core.requireActive(registration)
        return registration
    }

    /// A delete has something to delete; a valid delete token is not spent when it has not.
    private func requireSomethingToDelete(_ registration: RegistrationRecord, _ purpose: TokenPurpose) throws {
        if purpose == .deleteRecovery, registration.recoveryPublicKey == nil {
            throw DomainError(.recoveryNotActivated, "No recovery code is set; there is nothing to delete")
        }
    }

    /// Uses a token of `purpose` and grants one recovery change for 300 s.
    /// - Throws: the state answers, `tokenInvalid`, `tokenExpired`, `tokenPurposeMismatch`,
    ///   `recoveryNotActivated` (a delete with nothing to delete: the token is not spent).
    public func redeemToken(registrationId: String, token: String, purpose: TokenPurpose, caller: Caller?) throws -> TokenGrant {
        tx.willRead(Latchkey.registrationReads(.value(registrationId)) + core.tokenReads(token))
        let registration = try changingRegistration(registrationId)
        let tokenExpiresAt = try core.consumeToken(tx, effects, token, registration: registration, purpose: purpose) {
            try requireSomethingToDelete(registration, purpose)
        }
        guard let kind = ChallengeKind(grant: purpose) else {
            throw DomainError(.tokenPurposeMismatch, "A token of purpose none authorises nothing")
        }
        // The grant's secret is a one-way digest of the token (the device keeps it while the
        // change is in hand, never the token; nothing is drawn from the random source); the
        // store keeps only the digest of that secret.
        let secret = core.secretHash(token, purpose: "grant")
        let grant = try issueChallenge(
            registration, kind, challenge: core.secretHash(secret, purpose: "grantSecret"),
            tokenExpiresAt: tokenExpiresAt)
        return TokenGrant(grantId: grant.id, secret: secret, expiresAt: grant.expiresAt)
    }

    /// The grant of a recovery change, for the token it was given for.
    private func openGrant(_ grant: TokenGrant, registrationId: String, _ kind: ChallengeKind) throws -> ChallengeRecord {
        let record = try openChallenge(grant.grantId, registrationId: registrationId, serving: [kind])
        guard SecretHash.constantTimeEquals(record.challenge, core.secretHash(grant.secret, purpose: "grantSecret")) else {
            throw DomainError(.noSessionInProgress, "This grant did not open the change in hand")
        }
        return record
    }

    /// The change a grant opened, on a registration that may change its recovery, while the token the grant was given for lives:
    /// the change it authorised ends with it, as on `server/recovery/*`.
    /// - Throws: the grant's and the state answers, `tokenExpired`.
    private func grantedChange(
        _ grant: TokenGrant, registrationId: String, _ kind: ChallengeKind
    ) throws -> (grant: ChallengeRecord, registration: RegistrationRecord) {
        tx.willRead([.row(ChallengeRecord.self, id: grant.grantId)] + Latchkey.registrationReads(.value(registrationId)))
        let record = try openGrant(grant, registrationId: registrationId, kind)
        let registration = try changingRegistration(registrationId)
        if let tokenExpiresAt = record.tokenExpiresAt, now >= tokenExpiresAt {
            throw DomainError(.tokenExpired, "The token that opened this change has expired")
        }
        return (record, registration)
    }

    /// Sets (or replaces) the recovery key, authorised by a grant; the key's proof signs the
    /// grant's secret as its challenge.
    /// - Throws: the grant's and the state answers, `tokenExpired`, `proofInvalid`.
    public func setRecovery(
        registrationId: String, grant: TokenGrant, key: KeyWithProof, tokenPurpose: TokenPurpose,
        caller: Caller?
    ) throws -> RecoveryMethodsOutcome {
        var (record, registration) = try grantedChange(grant, registrationId: registrationId, .addOrUpdateRecovery)
        try checkProofs(
            [(.recovery, key)], SignedPayload(.setRecovery, subject: registrationId, challenge: grant.secret, role: .recovery),
            registrationId: registrationId, caller: caller)
        try useUp(record)
        return try setRecoveryKey(key, &registration, notAfter: record.tokenExpiresAt, tokenPurpose: tokenPurpose, caller: caller)
    }

    private func setRecoveryKey(
        _ key: KeyWithProof, _ registration: inout RegistrationRecord, notAfter: Int64?,
        tokenPurpose: TokenPurpose, caller: Caller?
    ) throws -> RecoveryMethodsOutcome {
        // The 5 attempts are the registration's, not the code's: a new code lifts no lock and restores no attempt (only a
        // successful recovery and an operator's unlock do).
        registration.recoveryPublicKey = key.publicKey.sec1
        try tx.save(registration)
        try audit(.recoveryCodeSet, userId: registration.userId, registrationId: registration.id, caller: caller)
        let token = try core.issueToken(tx, effects, registration: registration, purpose: tokenPurpose, notAfter: notAfter)
        return RecoveryMethodsOutcome(recoveryMethods: registration.recoveryMethods, token: token)
    }

    /// `server/recovery/set`: the token, then the key's proof, then the token is used and the
    /// key set (a failing proof spends nothing).
    public func setRecovery(
        registrationId: String, token: String, key: KeyWithProof, tokenPurpose: TokenPurpose,
        caller: Caller?
    ) throws -> RecoveryMethodsOutcome {
        tx.willRead(Latchkey.registrationReads(.value(registrationId)) + core.tokenReads(token))
        var registration = try changingRegistration(registrationId)
        try core.checkToken(tx, effects, token, registration: registration, purpose: .addOrUpdateRecovery)
        try checkProofs(
            [(.recovery, key)], SignedPayload(.setRecovery, subject: registrationId, challenge: token, role: .recovery),
            registrationId: registrationId, caller: caller)
        let notAfter = try core.consumeToken(tx, effects, token, registration: registration, purpose: .addOrUpdateRecovery)
        return try setRecoveryKey(key, &registration, notAfter: notAfter, tokenPurpose: tokenPurpose, caller: caller)
    }

    /// Deletes the recovery key, authorised by a grant.
    /// - Throws: the grant's and the state answers, `tokenExpired`, `recoveryNotActivated`.
    public func deleteRecovery(
        registrationId: String, grant: TokenGrant, tokenPurpose: TokenPurpose,
        caller: Caller?
    ) throws -> RecoveryMethodsOutcome {
        var (record, registration) = try grantedChange(grant, registrationId: registrationId, .deleteRecovery)
        try requireSomethingToDelete(registration, .deleteRecovery)
        try useUp(record)
        return try deleteRecoveryKey(&registration, notAfter: record.tokenExpiresAt, tokenPurpose: tokenPurpose, caller: caller)
    }

    private func deleteRecoveryKey(
        _ registration: inout RegistrationRecord, notAfter: Int64?, tokenPurpose: TokenPurpose,
        caller: Caller?
    ) throws -> RecoveryMethodsOutcome {
        registration.recoveryPublicKey = nil
        try tx.save(registration)
        try audit(.recoveryDeleted, userId: registration.userId, registrationId: registration.id, caller: caller)
        let token = try core.issueToken(tx, effects, registration: registration, purpose: tokenPurpose, notAfter: notAfter)
        return RecoveryMethodsOutcome(recoveryMethods: [], token: token)
    }

    /// `server/recovery/delete`: the token is used and the key deleted.
    public func deleteRecovery(registrationId: String, token: String, tokenPurpose: TokenPurpose, caller: Caller?) throws -> RecoveryMethodsOutcome {
        tx.willRead(Latchkey.registrationReads(.value(registrationId)) + core.tokenReads(token))
        var registration = try changingRegistration(registrationId)
        let notAfter = try core.consumeToken(tx, effects, token, registration: registration, purpose: .deleteRecovery) {
            try requireSomethingToDelete(registration, .deleteRecovery)
        }
        return try deleteRecoveryKey(&registration, notAfter: notAfter, tokenPurpose: tokenPurpose, caller: caller)
    }

    /// A registration that may be recovered: active, or locked by wrong PINs (recovering is what
    /// its owner needs; the recovery code has its own attempts), with a recovery key, its
    /// recovery not locked.
    /// - Throws: `notFound` (unknown), the state answers, `recoveryNotActivated`, `recoveryLocked`.
    private func recoverableRegistration(_ registrationId: String) throws -> RegistrationRecord {
        guard let registration = try tx.fetch(RegistrationRecord.self, id: registrationId) else { throw DomainError.notFound("registration") }
        if registration.registrationState != .locked { try core.requireActive(registration) }
        guard registration.recoveryPublicKey != nil else {
            throw DomainError(.recoveryNotActivated, "No recovery code is set for this registration")
        }
        guard !registration.recoveryLocked else {
            throw DomainError(.recoveryLocked, "Recovery is locked after too many wrong recovery codes")
        }
        return registration
    }

    /// Opens a recovery: what the new keys are to be made for (the enabled two-factor methods).
    public func recoveryChallenge(registrationId: String, caller: Caller) throws -> KeyRequest {
        tx.willRead(Latchkey.registrationReads(.value(registrationId)))
        let registration = try recoverableRegistration(registrationId)
        let app = try core.application(tx, registration.applicationId)
        let record = try issueChallenge(registration, .recover, caller: caller)
        return KeyRequest(
            id: record.id, challenge: record.challenge, expiresAt: record.expiresAt,
            authMethodsForActivation: app.authMethods.filter(\.isTwoFactor), pinRules: app.pinRules)
    }

    /// Recovers a registration onto new keys (`device` and exactly one two-factor method) with the recovery key's signature.
    ///
    /// A failing one counts against the 5 recovery attempts; success uses the recovery key up and re-keys the registration: the old
    /// device's keys stop working.
    /// - Throws: the challenge answers, the recovery answers, `authMethodNotAllowed`, `invalidParams` (other keys), `proofInvalid`,
    ///   `recoveryCodeInvalid`, `recoveryLocked`.
    public func recover(
        registrationId: String, challengeId: String, recoverySignature: Signature, keys: KeySet,
        tokenPurpose: TokenPurpose, caller: Caller?
    ) throws -> ActivationOutcome {
        tx.willRead(
            [.row(ChallengeRecord.self, id: challengeId), .row(RegistrationKeyRecord.self, id: registrationId)]
                + Latchkey.registrationReads(.value(registrationId)))
        let challenge = try openChallenge(challengeId, registrationId: registrationId, serving: [.recover])
        // The installation the challenge was issued to asks (a commit names none of its own).
        let caller = caller ?? challenge.caller.flatMap(Caller.init(key:))
        var registration = try recoverableRegistration(registrationId)
        guard keys.factors.count == 1, let (method, factorKey) = keys.factors.first else {
            throw DomainError.invalid(.recoveryKeys, "must be device and exactly one two-factor method")
        }
        let app = try core.application(tx, registration.applicationId)
        guard app.authMethods.contains(method) else {
            throw DomainError(.authMethodNotAllowed, "\(method.rawValue) is not enabled for this application")
        }
        let payload = SignedPayload(.recover, subject: registrationId, challenge: challenge.challenge, role: .recovery)
        try checkProofs(keys, payload, registrationId: registrationId, caller: caller)
        try useUp(challenge)
        guard let recoveryKey = registration.recoveryPublicKey.flatMap(PublicKey.init(sec1:)),
            recoveryKey.verifies(recoverySignature, over: payload)
        else {
            registration.recoveryFailedAttempts += 1
            try tx.save(registration)
            try audit(.recoveryCodeRejected, userId: registration.userId, registrationId: registration.id, caller: caller)
            let remaining = RecoveryCode.maxWrongAttempts - registration.recoveryFailedAttempts
            if remaining <= 0 {
                try audit(.recoveryLocked, userId: registration.userId, registrationId: registration.id)
                throw DomainError(.recoveryLocked, "Too many wrong recovery codes: recovery is now locked")
            }
            throw DomainError(.recoveryCodeInvalid, "The recovery code is not valid", [(.remainingAttempts, .int(remaining))])
        }
        let previous = registration.registrationState
        registration.rekey(device: keys.device.publicKey.sec1, method, factorKey.publicKey.sec1, owner: Caller.storedKey(caller))
        try tx.save(registration)
        core.registrationStateChanged(effects, registration, from: previous)
        try core.revokeTokens(tx, registrationId: registration.id)
        try audit(.recoveryCompleted, userId: registration.userId, registrationId: registration.id, caller: caller, detail: method.rawValue)
        if let user = try tx.fetch(UserRecord.self, id: registration.userId) {
            core.sendSecurityNotice(effects, to: user, "Your registration was recovered on a new device. If this was not you, contact support.")
        }
        let token = try core.issueToken(tx, effects, registration: registration, purpose: tokenPurpose)
        return ActivationOutcome(
            registrationId: registration.id, activatedAuthMethods: registration.methods, token: token,
            serverPublicKey: try core.serverPublicKey(tx, registrationId: registration.id))
    }
}

extension RegistrationRecord {
    /// New keys after a recovery: `device` and one two-factor method; the recovery key is used up.
    mutating func rekey(device: [UInt8], _ method: AuthMethod, _ factorKey: [UInt8], owner: String) {
        deviceId = owner
        possessionPublicKey = device
        pinPublicKey = nil
        touchIdPublicKey = nil
        faceIdPublicKey = nil
        setPublicKey(factorKey, for: method)
        authMethods = AuthMethod.text([.device, method])
        keyGeneration += 1
        // A registration locked by wrong PINs is active again, its counter at zero.
        state = RegistrationState.active.rawValue
        failedAttempts = 0
        recoveryPublicKey = nil
        recoveryFailedAttempts = 0
    }

    var recoveryMethods: [String] { recoveryPublicKey == nil ? [] : ["backup"] }

    /// Whether wrong recovery codes locked its recovery.
    var recoveryLocked: Bool { recoveryFailedAttempts >= RecoveryCode.maxWrongAttempts }
}
