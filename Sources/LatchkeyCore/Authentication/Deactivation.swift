import LatchkeyContract

extension ServerSession {
    /// Removes the registration at its device's request (the device signature suffices; a second factor, if given, is checked and counts,
    /// but on an active registration only: on another, a failing one answers its state).
    ///
    /// Its tokens die.
    /// - Throws: the challenge answers, `registrationRemoved` (already removed, or not this registration's device), `authenticationFailed`,
    ///   `registrationLocked`; with a failing second factor on a registration not active, its state (`lockedByAdmin`,
    ///   `verificationPending`, `registrationLocked`).
    public func removeRegistration(registrationId: String, challengeId: String, signatures: FactorSignatures, caller: Caller?) throws {
        tx.willRead(Self.verificationReads(challengeId: challengeId, registrationId: registrationId))
        let challenge = try openChallenge(challengeId, registrationId: registrationId, serving: [.authenticate, .removeRegistration])
        var registration = try core.registration(tx, registrationId)
        guard registration.registrationState != .removed else { throw DomainError(.registrationRemoved, "The registration was removed") }
        let payload = SignedPayload(
            .removeRegistration, subject: registrationId, challenge: challenge.challenge, role: .device,
            contextHash: challenge.contextHash)
        try verifySignatures(signatures, over: payload, &registration, challenge, caller: caller, asAuthentication: false)
        let previous = registration.registrationState
        registration.state = RegistrationState.removed.rawValue
        try tx.save(registration)
        core.registrationStateChanged(effects, registration, from: previous)
        try core.revokeTokens(tx, registrationId: registration.id)
        try audit(.registrationDeactivated, userId: registration.userId, registrationId: registration.id, caller: caller, detail: "server")
    }
}
