import LatchkeyContract

extension ServerSession {
    /// Adds (or replaces) a method's key once the user proved themselves with a method that may
    /// add or update it.
    /// - Throws: the challenge and state answers, `authMethodNotAllowed`, `proofInvalid`,
    ///   `registrationRemoved`, `authenticationFailed`, `registrationLocked`.
    public func addAuthMethod(
        registrationId: String, challengeId: String, signatures: FactorSignatures, method: AuthMethod,
        key: KeyWithProof, caller: Caller?
    ) throws -> [AuthMethod] {
        tx.willRead(Self.verificationReads(challengeId: challengeId, registrationId: registrationId))
        let challenge = try openChallenge(challengeId, registrationId: registrationId, serving: [.authenticate, .addAuthMethod])
        var registration = try core.registration(tx, registrationId)
        try core.requireActive(registration)
        let app = try core.application(tx, registration.applicationId)
        guard method != .device else {
            throw DomainError(.authMethodNotAllowed, "device is the registration's own key: it is never added or updated")
        }
        let payload = SignedPayload(
            .addAuthMethod, subject: registrationId, challenge: challenge.challenge, role: .device,
            contextHash: challenge.contextHash)
        try checkProofs([(KeyRole(method), key)], payload, registrationId: registrationId, caller: caller)
        try verifySignatures(signatures, over: payload, &registration, challenge, caller: caller) {
            guard let proof = signatures.factor else {
                throw DomainError(.authMethodNotAllowed, "A single-factor method cannot add a two-factor one")
            }
            guard app.methodsAddableBy(proof).contains(method), app.authMethods.contains(method) else {
                throw DomainError(.authMethodNotAllowed, "\(proof.rawValue) may not add or update \(method.rawValue)")
            }
        }
        let existed = registration.methods.contains(method)
        registration.setPublicKey(key.publicKey.sec1, for: method)
        registration.authMethods = AuthMethod.text(registration.methods + [method])
        try tx.save(registration)
        try audit(
            existed ? .authMethodUpdated : .authMethodAdded, userId: registration.userId, registrationId: registration.id,
            caller: caller, detail: method.rawValue)
        return registration.methods
    }

    /// Removes a method after the device signed (a second factor, if given, is checked and counts).
    /// - Throws: the challenge and state answers, `cannotDeactivateDevice`, `authMethodNotAllowed`,
    ///   `registrationRemoved`, `authenticationFailed`, `registrationLocked`.
    public func removeAuthMethod(
        registrationId: String, challengeId: String, signatures: FactorSignatures, method: AuthMethod,
        caller: Caller?
    ) throws -> [AuthMethod] {
        tx.willRead(Self.verificationReads(challengeId: challengeId, registrationId: registrationId))
        let challenge = try openChallenge(challengeId, registrationId: registrationId, serving: [.authenticate, .addAuthMethod])
        var registration = try core.registration(tx, registrationId)
        try core.requireActive(registration)
        // The device authentication comes first (PROTOCOL: "a device authentication is made first"; "every method that takes
        // signatures checks device first"), then what is asked of it.
        let payload = SignedPayload(
            .removeAuthMethod, subject: registrationId, challenge: challenge.challenge, role: .device,
            contextHash: challenge.contextHash)
        try verifySignatures(signatures, over: payload, &registration, challenge, caller: caller)
        guard method != .device else {
            throw DomainError(.cannotDeactivateDevice, "The device method cannot be deactivated; deactivate the registration instead")
        }
        guard registration.methods.contains(method) else {
            throw DomainError(.authMethodNotAllowed, "\(method.rawValue) is not activated for this registration")
        }
        registration.setPublicKey(nil, for: method)
        registration.authMethods = AuthMethod.text(registration.methods.filter { $0 != method })
        try tx.save(registration)
        try audit(
            .authMethodDeactivated, userId: registration.userId, registrationId: registration.id, caller: caller,
            detail: method.rawValue)
        return registration.methods
    }
}
