/// What a recovery add/update or delete answers.
public struct RecoveryMethodsOutcome: Sendable, Equatable {
    public var recoveryMethods: [String]
    public var token: String?
}

extension Latchkey {
    /// Opens a recovery add/update (or delete), authorised by a token of the right purpose.
    /// - Throws: `notActivatedLocally`, the state errors, `tokenInvalid`, `tokenExpired`, `tokenPurposeMismatch`.
    public func startRecoveryChange(deviceId: String, token: String, purpose: TokenPurpose) throws {
        try transact { tx, effects in
            let (_, registration) = try deviceRegistration(tx, deviceId: deviceId)
            try requireActive(registration)
            let tokenExpiry = try consumeToken(tx, effects, token, registration: registration, purpose: purpose) {
                // A valid delete token is not spent when there is nothing to delete.
                if purpose == .deleteRecovery, registration.recoveryPublicKey == nil,
                   try DeviceKeychain(tx: tx, deviceId: deviceId).get(.recoveryMaskedKey) == nil {
                    throw DomainError(.recoveryNotActivated, "No recovery code is set; there is nothing to delete")
                }
            }
            try startSession(tx, deviceId: deviceId, kind: purpose == .deleteRecovery ? .recoveryDelete : .recoveryAddOrUpdate,
                             registration: registration, tokenExpiresAt: tokenExpiry)
        }
    }

    /// Sets (or replaces) the recovery code: the device derives a key from it, the server keeps
    /// the public key.
    /// - Throws: `noSessionInProgress`, `sessionExpired`, the state errors, `policyViolation`.
    public func finishRecoveryAddOrUpdate(deviceId: String, recoveryCode: String, tokenPurpose: TokenPurpose) throws -> RecoveryMethodsOutcome {
        try transact { tx, effects in
            let session = try openSession(tx, deviceId: deviceId, kinds: [.recoveryAddOrUpdate])
            var (_, registration) = try deviceRegistration(tx, deviceId: deviceId)
            try requireActive(registration)
            try RecoveryCode.check(recoveryCode)
            let recovery = DeviceRecovery(keychain: DeviceKeychain(tx: tx, deviceId: deviceId), random: random)
            registration.recoveryPublicKey = try recovery.create(code: recoveryCode, registrationId: registration.id)
            registration.recoveryFailedAttempts = 0
            try tx.save(registration)
            try tx.delete(OperationSessionRecord.self, id: deviceId)
            try audit(tx, effects, .recoveryCodeSet, userId: registration.userId, registrationId: registration.id, deviceId: deviceId)
            let token = try issueToken(tx, effects, registration: registration, purpose: tokenPurpose, notAfter: session.tokenExpiresAt)
            return RecoveryMethodsOutcome(recoveryMethods: ["backup"], token: token)
        }
    }

    /// Deletes the recovery method on both sides.
    /// - Throws: `noSessionInProgress`, `sessionExpired`, the state errors, `recoveryNotActivated`.
    public func finishRecoveryDelete(deviceId: String, tokenPurpose: TokenPurpose) throws -> RecoveryMethodsOutcome {
        try transact { tx, effects in
            let session = try openSession(tx, deviceId: deviceId, kinds: [.recoveryDelete])
            var (_, registration) = try deviceRegistration(tx, deviceId: deviceId)
            try requireActive(registration)
            let keychain = DeviceKeychain(tx: tx, deviceId: deviceId)
            let deviceHasRecovery = try keychain.get(.recoveryMaskedKey) != nil
            guard registration.recoveryPublicKey != nil || deviceHasRecovery else {
                throw DomainError(.recoveryNotActivated, "No recovery code is set")
            }
            registration.recoveryPublicKey = nil
            registration.recoveryFailedAttempts = 0
            try tx.save(registration)
            try keychain.wipeRecovery()
            try tx.delete(OperationSessionRecord.self, id: deviceId)
            try audit(tx, effects, .recoveryDeleted, userId: registration.userId, registrationId: registration.id, deviceId: deviceId)
            let token = try issueToken(tx, effects, registration: registration, purpose: tokenPurpose, notAfter: session.tokenExpiresAt)
            return RecoveryMethodsOutcome(recoveryMethods: [], token: token)
        }
    }

    /// The registration a restored device's recovery data names, checked for recovery.
    private func recoverableRegistration(_ tx: StoreTransaction, deviceId: String) throws -> (DeviceRecord, RegistrationRecord) {
        let device = try device(tx, deviceId)
        let keychain = DeviceKeychain(tx: tx, deviceId: deviceId)
        if try keychain.get(.registrationId) != nil {
            throw DomainError(.alreadyActivated, "This device holds an activation already")
        }
        guard try keychain.get(.recoveryMaskedKey) != nil, let registrationId = try keychain.string(.recoveryRegistrationId) else {
            throw DomainError(.recoveryNotActivated, "This device holds no recovery data")
        }
        guard let registration = try tx.fetch(RegistrationRecord.self, id: registrationId) else {
            throw DomainError(.registrationRemoved, "The registration no longer exists")
        }
        try requireActive(registration)
        guard registration.recoveryPublicKey != nil else {
            throw DomainError(.recoveryNotActivated, "No recovery code is set for this registration")
        }
        guard registration.recoveryFailedAttempts < RecoveryCode.maxWrongAttempts else {
            throw DomainError(.recoveryLocked, "Recovery is locked after too many wrong recovery codes")
        }
        return (device, registration)
    }

    /// Opens a recovery on a device restored from backup.
    /// - Throws: `alreadyActivated`, `recoveryNotActivated`, the state errors, `recoveryLocked`.
    public func startRecovery(deviceId: String) throws -> ActivationOffer {
        try transact { tx, _ in
            let (device, registration) = try recoverableRegistration(tx, deviceId: deviceId)
            try startSession(tx, deviceId: deviceId, kind: .recovery, registration: registration)
            return offer(try application(tx, registration.applicationId), device)
        }
    }

    /// Recovers the registration onto this device: the code proves the user, one new method is
    /// activated besides `device`, and the registration is bound to the new keys (the old
    /// device's stop working). The code is consumed.
    /// - Throws: the finish checks, `recoveryNotActivated`, `recoveryLocked`, `authMethodNotAllowed`,
    ///   `policyViolation`, the biometric errors, `recoveryCodeInvalid`.
    public func finishRecovery(deviceId: String, recoveryCode: String, _ parameter: AuthParameter,
                               tokenPurpose: TokenPurpose) throws -> ActivationOutcome {
        try transact { tx, effects in
            let session = try openSession(tx, deviceId: deviceId, kinds: [.recovery])
            let (device, found) = try recoverableRegistration(tx, deviceId: deviceId)
            var registration = found
            guard registration.id == session.registrationId else {
                throw DomainError(.noSessionInProgress, "No recovery was started for this registration")
            }
            let app = try application(tx, registration.applicationId)
            guard parameter.method.isTwoFactor, app.authMethods.contains(parameter.method) else {
                throw DomainError(.authMethodNotAllowed, "Recovery activates exactly one two-factor method besides device")
            }
            guard device.supports(parameter.method) else {
                throw DomainError(.biometryUnavailable, "This device has no \(parameter.method.rawValue)")
            }
            if parameter.method == .pin { try PinPolicy(app).check(parameter.pin ?? "") }
            let keychain = DeviceKeychain(tx: tx, deviceId: deviceId)
            let factors = DeviceFactors(keychain: keychain, device: device, random: random)
            try factors.checkBiometry(parameter.method)

            let message = FactorKey.challengeMessage(challenge: session.challenge, registrationId: registration.id,
                                                     counter: session.counter, context: "recovery")
            let signature = try DeviceRecovery(keychain: keychain, random: random).sign(message, code: recoveryCode)
            try tx.delete(OperationSessionRecord.self, id: deviceId)
            guard let recoveryKey = registration.recoveryPublicKey,
                  FactorKey.verify(signature, over: message, publicKey: recoveryKey) else {
                registration.recoveryFailedAttempts += 1
                try tx.save(registration)
                try audit(tx, effects, .recoveryCodeRejected, userId: registration.userId, registrationId: registration.id, deviceId: deviceId)
                let remaining = RecoveryCode.maxWrongAttempts - registration.recoveryFailedAttempts
                if remaining <= 0 {
                    try audit(tx, effects, .recoveryLocked, userId: registration.userId, registrationId: registration.id)
                    throw DomainError(.recoveryLocked, "Too many wrong recovery codes: recovery is now locked")
                }
                throw DomainError(.recoveryCodeInvalid, "The recovery code is not valid", [("remainingAttempts", .int(remaining))])
            }

            // Re-key: this device's new keys replace the old device's; the code is used up.
            registration.deviceId = deviceId
            registration.possessionPublicKey = try factors.createPossessionKey()
            registration.pinPublicKey = nil
            registration.touchIdPublicKey = nil
            registration.faceIdPublicKey = nil
            registration.setPublicKey(try factors.createFactorKey(parameter), for: parameter.method)
            registration.authMethods = AuthMethod.text([.device, parameter.method])
            registration.keyGeneration += 1
            registration.failedAttempts = 0
            registration.recoveryPublicKey = nil
            registration.recoveryFailedAttempts = 0
            try tx.save(registration)
            try revokeTokens(tx, registrationId: registration.id)
            try keychain.set(.registrationId, registration.id)
            try keychain.setActivatedMethods(registration.methods)
            try keychain.wipeRecovery()
            try audit(tx, effects, .recoveryCompleted, userId: registration.userId, registrationId: registration.id, deviceId: deviceId,
                      detail: parameter.method.rawValue)
            if let user = try tx.fetch(UserRecord.self, id: registration.userId) {
                sendSecurityNotice(effects, to: user, "Your registration was recovered on a new device. If this was not you, contact support.")
            }
            let token = try issueToken(tx, effects, registration: registration, purpose: tokenPurpose)
            return ActivationOutcome(registrationId: registration.id, activatedAuthMethods: registration.methods, token: token)
        }
    }

    /// Whether the device holds recovery data.
    public func isRecoveryActivated(deviceId: String) throws -> Bool {
        try inspect { tx in
            _ = try device(tx, deviceId)
            return try DeviceRecovery(keychain: DeviceKeychain(tx: tx, deviceId: deviceId), random: random).isActivated
        }
    }
}
