import LatchkeyContract

extension Device {
    /// Opens setting (or deleting) the recovery code: the server uses the token, authorising one
    /// change.
    /// - Throws: `notActivatedLocally`, `registrationRemoved` (its keys moved to another phone by a recovery), and the server's
    ///   state and token answers.
    public func startRecoveryChange(token: String, purpose: TokenPurpose) throws {
        let registrationId = try heldRegistration()
        // A device whose keys a recovery moved to another phone answers registrationRemoved, and spends no token.
        try requireThisDevice(keyId: try server.registrationStatus(registrationId: registrationId).deviceKeyId)
        let grant = try server.redeemToken(registrationId: registrationId, token: token, purpose: purpose, caller: caller)
        var operation = PendingOperation(
            kind: purpose == .deleteRecovery ? .recoveryDelete : .recoveryAddOrUpdate, id: grant.grantId,
            challenge: grant.secret, expiresAt: grant.expiresAt)
        operation.registrationId = registrationId
        try storage.setPendingOperation(operation)
    }

    /// The grant of the change in hand.
    private func grant(_ operation: PendingOperation) -> TokenGrant {
        TokenGrant(grantId: operation.id, secret: operation.challenge, expiresAt: operation.expiresAt)
    }

    /// Sets (or replaces) the recovery code: a new recovery key masked under the code (with a
    /// slow KDF and no check value) joins the device's recovery data; the server keeps its
    /// public key.
    /// - Throws: `noSessionInProgress`, `sessionExpired`, `notActivatedLocally`, `policyViolation`,
    ///   and the server's answers.
    public func finishRecoveryAddOrUpdate(code: String, tokenPurpose: TokenPurpose) throws -> RecoveryMethodsOutcome {
        let operation = try pending(.recoveryAddOrUpdate)
        let registrationId = try heldRegistration()
        try RecoveryCode.check(code)
        let key = FactorKey.generate(random)
        let salt = random.bytes(16)
        let payload = SignedPayload(.setRecovery, subject: registrationId, challenge: operation.challenge, role: .recovery)
        guard let handed = try FactorKey.handOver(key, payload) else { throw KeyGenerationFailed() }
        let outcome = try server.setRecovery(
            registrationId: registrationId, grant: grant(operation), key: handed,
            tokenPurpose: tokenPurpose, caller: caller)
        try storage.set(.recoveryRegistrationId, registrationId)
        try storage.setItem(.recoverySalt, salt)
        try storage.setItem(.recoveryMaskedKey, try KeyMask.mask(key, secret: code, salt: salt, rounds: KeyMask.recoveryRounds))
        try storage.setPendingOperation(nil)
        return outcome
    }

    /// Deletes the recovery method on both sides.
    /// - Throws: `noSessionInProgress`, `sessionExpired`, `notActivatedLocally`, and the server's answers.
    public func finishRecoveryDelete(tokenPurpose: TokenPurpose) throws -> RecoveryMethodsOutcome {
        let operation = try pending(.recoveryDelete)
        let registrationId = try heldRegistration()
        let outcome = try server.deleteRecovery(
            registrationId: registrationId, grant: grant(operation), tokenPurpose: tokenPurpose,
            caller: caller)
        try storage.wipe(.recovery)
        try storage.setPendingOperation(nil)
        return outcome
    }

    /// Whether the recovery data's registration has its recovery locked: false where the phone holds no such data or the server
    /// answers otherwise (the caller's own answer stands then); a store that fails fails the call.
    private func isRecoveryLocked() throws -> Bool {
        do {
            return try server.registrationStatus(registrationId: try recoverableRegistration()).recoveryLocked
        } catch let answer as DomainError where answer.reason != .storeUnavailable {
            return false
        }
    }

    /// The recovery data's registration.
    /// - Throws: `alreadyActivated`, `recoveryNotActivated`.
    private func recoverableRegistration() throws -> String {
        if try isActivatedLocally { throw DomainError(.alreadyActivated, "This device holds an activation already") }
        guard try isRecoveryActivated, let registrationId = try storage.string(.recoveryRegistrationId) else {
            throw DomainError(.recoveryNotActivated, "This device holds no recovery data")
        }
        return registrationId
    }

    /// Opens a recovery on a device restored from a backup.
    /// - Throws: `alreadyActivated`, `recoveryNotActivated`, `registrationRemoved` (the server has no such registration), and the
    ///   server's answers.
    public func startRecovery() throws -> ActivationOffer {
        let registrationId = try recoverableRegistration()
        let challenge: KeyRequest
        do {
            challenge = try server.recoveryChallenge(registrationId: registrationId, caller: caller)
        } catch let answer as DomainError where answer.reason == .notFound {
            // The server has no such registration (a backup from another store): to this phone, its registration is gone.
            throw DomainError(.registrationRemoved, "The registration no longer exists")
        }
        var operation = PendingOperation(kind: .recovery, challenge)
        operation.registrationId = registrationId
        try storage.setPendingOperation(operation)
        // The two-factor methods the new keys may use, the list server/recovery/challenge gives
        // (`device` always comes with one and is no choice).
        return ActivationOffer(challenge.authMethodsForActivation.filter(profile.supports), challenge.pinRules)
    }

    /// Recovers the registration onto this device: the recovery key (unmasked with `code`; a wrong code unmasks a wrong key, which only the server
    /// can tell) signs, and new keys for `device` and exactly one two-factor method replace the old device's.
    ///
    /// The code is used up.
    /// - Throws: the finish checks, `alreadyActivated`, `recoveryNotActivated`, `authMethodNotAllowed`, `biometryUnavailable`,
    ///   `policyViolation`, the biometric errors, and the server's `recoveryCodeInvalid`, `recoveryLocked`, state answers.
    public func finishRecovery(code: String, _ parameter: AuthParameter, tokenPurpose: TokenPurpose) throws -> ActivationOutcome {
        let operation: PendingOperation
        do {
            operation = try pending(.recovery)
        } catch let none as DomainError where none.reason == .noSessionInProgress {
            // "The fifth wrong code answers recoveryLocked, as does every later recovery/start or recovery/finish": a finish with no
            // recovery open (none can open once it is locked) says so too.
            if try isRecoveryLocked() { throw DomainError(.recoveryLocked, "Recovery is locked after too many wrong recovery codes") }
            throw none
        }
        let registrationId = try recoverableRegistration()
        guard parameter.method.isTwoFactor else {
            throw DomainError(.authMethodNotAllowed, "Recovery activates exactly one two-factor method besides device")
        }
        try checkNewFactor(parameter, enabled: operation.methods, rules: operation.pinRules)
        try profile.checkBiometry(parameter.method)
        let payload = SignedPayload(.recover, subject: registrationId, challenge: operation.challenge, role: .recovery)
        let salt = try storage.item(.recoverySalt) ?? []
        let masked = try storage.item(.recoveryMaskedKey) ?? []
        let recoveryKey = try KeyMask.unmask(masked, secret: code, salt: salt, rounds: KeyMask.recoveryRounds)
        let (keys, deviceKey, factorKey) = try newKeys(payload, parameter)
        let outcome = try usingUp(operation) {
            try server.recover(
                registrationId: registrationId, challengeId: operation.id,
                recoverySignature: try FactorKey.sign(payload, with: recoveryKey), keys: keys, tokenPurpose: tokenPurpose,
                caller: caller)
        }
        try keep(registrationId: outcome.registrationId, deviceKey: deviceKey, factorKey: factorKey, parameter, methods: outcome.activatedAuthMethods)
        try learn(serverPublicKey: outcome.serverPublicKey)
        try storage.wipe(.recovery)
        return outcome
    }

    /// What a backup of this device carries: the recovery data, never this-device-only items.
    public func backupItems(iCloud: Bool) throws -> [(DeviceItem, [UInt8])] {
        try DeviceItem.allCases.filter { $0.travels(inICloudBackup: iCloud) }.compactMap { item in try storage.item(item).map { (item, $0) } }
    }
}
