import LatchkeyContract

extension Device {
    /// Opens an add-or-update: a challenge that picks up no pushed authentication, and the
    /// methods the registration may add or update that this device has.
    public func startAddOrUpdate() throws -> AddOrUpdateOffer {
        let (challenge, _) = try openChallenge(.addAuthMethod, kind: .addOrUpdate)
        let allowed = (challenge.allowedAuthMethodsToActivate ?? []).filter(profile.supports)
        return AddOrUpdateOffer(allowedAuthMethodsToActivate: allowed, challenge: try prompt(challenge))
    }

    /// Adds or updates `activation` (a new PIN, a biometric method) once `proof` proves the user.
    /// - Throws: the finish checks, `authMethodNotAllowed`, `biometryUnavailable`, `policyViolation`,
    ///   the biometric errors, `biometryKeyInvalidated` (`proof`'s key was destroyed: that method is
    ///   deactivated, the operation stays), and the server's answers (`authenticationFailed` counts).
    public func finishAddOrUpdate(activation: AuthParameter, proof: AuthParameter) throws -> [AuthMethod] {
        let operation = try pending(.addOrUpdate)
        let registrationId = try heldRegistration()
        guard try activatedMethods().contains(proof.method) else {
            try refuseFactor(
                DomainError(.authMethodNotAllowed, "\(proof.method.rawValue) is not activated for this registration"), registrationId: registrationId)
        }
        if activation.method.isTwoFactor, !proof.method.isTwoFactor {
            try refuseFactor(DomainError(.authMethodNotAllowed, "A single-factor method cannot add a two-factor one"), registrationId: registrationId)
        }
        guard operation.methods.contains(activation.method) else {
            try refuseFactor(
                DomainError(.authMethodNotAllowed, "\(proof.method.rawValue) may not add or update \(activation.method.rawValue)"),
                registrationId: registrationId)
        }
        guard profile.supports(activation.method) else {
            throw DomainError(.biometryUnavailable, "This device has no \(activation.method.rawValue)")
        }
        if activation.method == .pin { try operation.pinRules.check(activation.pin ?? "") }
        try profile.checkBiometry(activation.method)
        if try isInvalidated(proof.method) { try refuseInvalidated(proof.method, keeping: operation) }
        let payload = SignedPayload(
            .addAuthMethod, subject: registrationId, challenge: operation.challenge, role: .device,
            contextHash: operation.contextHash)
        let signatures = try signatures(payload, proof)
        let key = newFactorKey()
        guard let handed = try FactorKey.handOver(key, payload.signed(by: KeyRole(activation.method))) else { throw KeyGenerationFailed() }
        let methods = try usingUp(operation) {
            try server.addAuthMethod(
                registrationId: registrationId, challengeId: operation.id, signatures: signatures,
                method: activation.method, key: handed, caller: caller)
        }
        try storeFactorKey(key, for: activation)
        try setActivatedMethods(methods)
        return methods
    }

    /// Removes a method from the registration and the device, after a device authentication.
    /// - Throws: `cannotDeactivateDevice` (after the registration's state, as on `server/`), `notActivatedLocally`,
    ///   `authMethodNotAllowed` (not activated), and the server's answers.
    public func deactivateAuthMethod(_ method: AuthMethod) throws -> [AuthMethod] {
        // Refused here, before a challenge replaces whatever session the phone holds.
        let registrationId = try heldRegistration()
        if method == .device {
            // The registration's state first, as `server/authMethod/remove` checks it (and a phone whose keys moved elsewhere is
            // told so); what the server would then refuse is refused without a challenge.
            let status = try server.registrationStatus(registrationId: registrationId)
            try requireThisDevice(keyId: status.deviceKeyId)
            if let refusal = status.state.refusal { throw refusal }
            throw DomainError(.cannotDeactivateDevice, "The device method cannot be deactivated; deactivate the registration instead")
        }
        guard try activatedMethods().contains(method) else {
            throw DomainError(.authMethodNotAllowed, "\(method.rawValue) is not activated for this registration")
        }
        let (_, operation) = try openChallenge(.addAuthMethod, kind: .addOrUpdate)
        let payload = SignedPayload(.removeAuthMethod, subject: registrationId, challenge: operation.challenge, role: .device)
        let methods = try usingUp(operation) {
            try server.removeAuthMethod(
                registrationId: registrationId, challengeId: operation.id,
                signatures: try signatures(payload, AuthParameter(method: .device)), method: method, caller: caller)
        }
        try removeFactorKey(method)
        try setActivatedMethods(methods)
        return methods
    }

    /// Deactivates the registration: on the server too (the device signs its removal) unless `onlyLocally`; then the device forgets its activation.
    ///
    /// A registration the server no longer has, or has removed already, is only forgotten.
    /// - Throws: `notActivatedLocally`, `registrationRemoved` (the keys moved elsewhere: the other device's registration is left alone).
    public func deactivate(onlyLocally: Bool) throws {
        let registrationId = try heldRegistration()
        if !onlyLocally { try removeOnServer(registrationId) }
        try storage.wipe(.activation)
    }

    private func removeOnServer(_ registrationId: String) throws {
        let challenge: Challenge
        do {
            challenge = try server.challenge(registrationId: registrationId, purpose: .removeRegistration, caller: caller)
        } catch let answer as DomainError where answer.reason == .registrationRemoved || answer.reason == .notFound {
            return
        }
        try requireThisDevice(keyId: challenge.deviceKeyId, "The registration was moved to another device")
        let payload = SignedPayload(.removeRegistration, subject: registrationId, challenge: challenge.challenge, role: .device)
        try server.removeRegistration(
            registrationId: registrationId, challengeId: challenge.challengeId,
            signatures: try signatures(payload, AuthParameter(method: .device)), caller: caller)
    }
}
