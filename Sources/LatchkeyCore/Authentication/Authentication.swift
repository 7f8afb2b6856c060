import LatchkeyContract

extension ServerSession {
    /// Issues a challenge for a registration.
    ///
    /// An `authenticate` challenge checks the state as an authentication start does and picks up a pending
    /// pushed authentication; an `addAuthMethod` one picks up nothing and answers the methods the
    /// registration may add or update; a `removeRegistration` one is issued in any state but removed. -
    /// Throws: `notFound` (registration), the state answers.
    public func challenge(registrationId: String, purpose: ChallengePurpose, caller: Caller?) throws -> Challenge {
        tx.willRead(Self.challengeReads(registrationId, purpose: purpose))
        let registration = try core.registration(tx, registrationId)
        if purpose == .removeRegistration {
            if registration.registrationState == .removed { throw DomainError(.registrationRemoved, "The registration was removed") }
        } else {
            try core.requireActive(registration)
        }
        let app = try core.application(tx, registration.applicationId)
        let pushed = purpose == .authenticate ? try core.pendingPushedAuthentication(tx, of: registrationId) : nil
        let contextHash =
            pushed.map { PushContext.hash(title: $0.contextTitle, content: $0.contextContent, mime: $0.contextMIME) } ?? PushContext.noContextHash
        let record = try issueChallenge(registration, ChallengeKind(purpose), contextHash: contextHash, pushedAuthenticationId: pushed?.id)
        let allowed =
            purpose == .addAuthMethod
            ? AuthMethod.canonical(registration.methods.flatMap { app.methodsAddableBy($0) }.filter(app.authMethods.contains)) : nil
        return Challenge(
            challengeId: record.id, challenge: record.challenge, expiresAt: record.expiresAt, authenticationMethods: registration.methods,
            standing: ChallengeStanding(
                lastAttempt: registration.lastAttempt, totalAttemptsPIN: app.maxFailedAttempts,
                remainingAttemptsPIN: max(app.maxFailedAttempts - registration.failedAttempts, 0), authenticationId: pushed?.id,
                contextTitle: pushed?.contextTitle, contextContent: pushed?.contextContent, contextMIME: pushed?.contextMIME),
            contextHash: contextHash, pinRules: app.pinRules, allowedAuthMethodsToActivate: allowed,
            deviceKeyId: registration.deviceKeyId,
            operationSigningKey: Self.answersKeys(purpose) ? try core.operationSigningKey(tx, applicationId: app.applicationId) : nil,
            serverPublicKey: Self.answersKeys(purpose) ? try core.serverPublicKey(tx, registrationId: registration.id) : nil)
    }

    /// Verifies an authentication: the challenge, the state, then the signatures (see
    /// `verifySignatures`); approves a picked-up push on a two-factor success and yields a token.
    /// - Throws: `noSessionInProgress`, `sessionExpired`, the state answers, `authMethodNotAllowed`,
    ///   `registrationRemoved`, `authenticationFailed`, `registrationLocked`.
    public func verify(
        registrationId: String, challengeId: String, signatures: FactorSignatures, tokenPurpose: TokenPurpose,
        caller: Caller?
    ) throws -> Verification {
        tx.willRead(Self.verificationReads(challengeId: challengeId, registrationId: registrationId))
        let challenge = try openChallenge(challengeId, registrationId: registrationId, serving: [.authenticate])
        var registration = try core.registration(tx, registrationId)
        try core.requireActive(registration)
        var pushed = try challenge.pushedAuthenticationId.flatMap { try tx.fetch(PushedAuthenticationRecord.self, id: $0) }
        try checkPush(pushed)
        let payload = SignedPayload(
            .authenticate, subject: registrationId, challenge: challenge.challenge, role: .device,
            contextHash: challenge.contextHash)
        try verifySignatures(
            signatures, over: payload, &registration, challenge, caller: caller, push: pushed != nil,
            tokenPurpose: tokenPurpose)
        if var approved = pushed {
            approved.status = PushedAuthenticationStatus.approved.rawValue
            approved.decidedAt = now
            try tx.save(approved)
            pushed = approved
            try audit(.pushedAuthenticationApproved, userId: registration.userId, registrationId: registration.id)
        }
        let token = try core.issueToken(tx, effects, registration: registration, purpose: tokenPurpose)
        return Verification(contextContent: pushed?.contextContent, token: token)
    }

    /// What `challenge` reads: the registration, its application and (to authenticate) the pending
    /// pushes and the server's keys it answers with, asked together.
    static func challengeReads(_ registrationId: String, purpose: ChallengePurpose) -> [StoreRead] {
        let registration = StoreKey.value(registrationId)
        let application = StoreKey.column(RegistrationRecord.Columns.applicationId, of: RegistrationRecord.self, registration)
        return [.row(RegistrationRecord.self, id: registration), Latchkey.applicationRead(ofRegistration: registration)]
            + (purpose == .authenticate ? [.rows(Latchkey.pendingPushes, registration)] : [])
            + (Self.answersKeys(purpose)
                ? [.row(RegistrationKeyRecord.self, id: registration), .row(ApplicationKeyRecord.self, id: application)] : [])
    }

    /// Whether a challenge of `purpose` answers the application's operation-signing key and the registration's server key: those
    /// `server/authentication/challenge` issues (`authenticate`, `removeRegistration`), whose result lists both.
    static func answersKeys(_ purpose: ChallengePurpose) -> Bool {
        purpose == .authenticate || purpose == .removeRegistration
    }

    /// What `verify` reads: the challenge, the push it picked up, the registration and its
    /// application (its limit of failed attempts, its tokens' lifetime), asked together.
    static func verificationReads(challengeId: String, registrationId: String) -> [StoreRead] {
        let registration = StoreKey.value(registrationId)
        return [
            .row(ChallengeRecord.self, id: challengeId),
            .row(
                PushedAuthenticationRecord.self,
                id: .column(ChallengeRecord.Columns.pushedAuthenticationId, of: ChallengeRecord.self, .value(challengeId))),
            .row(RegistrationRecord.self, id: registration), Latchkey.applicationRead(ofRegistration: registration),
        ]
    }

    /// Cancels a challenge: it is used up, and a pushed authentication it picked up is rejected.
    ///
    /// The user said no even when the challenge's time is over: its push is rejected all the same
    /// (else the next session would pick it up again), and the expired challenge stays to answer
    /// `sessionExpired` (a domain error commits what was written).
    /// - Throws: `noSessionInProgress`, `sessionExpired`.
    public func cancelChallenge(registrationId: String, challengeId: String, caller: Caller?) throws -> Bool {
        tx.willRead(Self.verificationReads(challengeId: challengeId, registrationId: registrationId))
        let challenge = try knownChallenge(
            challengeId, registrationId: registrationId, serving: [.authenticate, .addAuthMethod, .removeRegistration])
        if now < challenge.expiresAt { try useUp(challenge) }
        try rejectPush(pickedUpBy: challenge, caller: caller)
        try requireUnexpired(challenge)
        return true
    }

    /// Rejects the pushed authentication `challenge` picked up, if it is still pending and its time is not over.
    private func rejectPush(pickedUpBy challenge: ChallengeRecord, caller: Caller?) throws {
        guard let pushedId = challenge.pushedAuthenticationId, var pushed = try tx.fetch(PushedAuthenticationRecord.self, id: pushedId),
            pushed.status == PushedAuthenticationStatus.pending.rawValue, now < pushed.expiresAt
        else { return }
        pushed.status = PushedAuthenticationStatus.rejected.rawValue
        pushed.decidedAt = now
        try tx.save(pushed)
        // The user, as on the push's creation and approval (the registration is among the verification's reads).
        let userId = try tx.fetch(RegistrationRecord.self, id: pushed.registrationId)?.userId
        try audit(.pushedAuthenticationRejected, userId: userId, registrationId: pushed.registrationId, caller: caller)
    }

    /// What a device shows without authenticating.
    /// - Throws: `notFound` (registration).
    public func registrationStatus(registrationId: String) throws -> RegistrationStatus {
        let key = StoreKey.value(registrationId)
        tx.willRead([.row(RegistrationRecord.self, id: key), Latchkey.applicationRead(ofRegistration: key)])
        let registration = try core.registration(tx, registrationId)
        let limit = try core.maxFailedAttempts(tx, registration)
        return RegistrationStatus(
            registrationId: registration.id, state: registration.registrationState, authMethods: registration.methods,
            remainingAttemptsPIN: max(limit - registration.failedAttempts, 0), totalAttemptsPIN: limit,
            recoveryMethods: registration.recoveryMethods, deviceKeyId: registration.deviceKeyId,
            recoveryLocked: registration.recoveryLocked)
    }
}
