extension Latchkey {
    /// The registration a device holds, as the server knows it.
    /// - Throws: `notFound` (device), `notActivatedLocally`, `registrationRemoved` (gone, or moved
    ///   to another device's keys by a recovery).
    func deviceRegistration(_ tx: StoreTransaction, deviceId: String) throws -> (DeviceRecord, RegistrationRecord) {
        let device = try device(tx, deviceId)
        return (device, try registration(tx, heldBy: device))
    }

    /// The registration `device` holds (the device already read in this transaction).
    /// - Throws: `notActivatedLocally`, `registrationRemoved`.
    func registration(_ tx: StoreTransaction, heldBy device: DeviceRecord) throws -> RegistrationRecord {
        guard let registrationId = try DeviceKeychain(tx: tx, deviceId: device.id).string(.registrationId) else {
            throw DomainError(.notActivatedLocally, "This device holds no activation")
        }
        guard let registration = try tx.fetch(RegistrationRecord.self, id: registrationId),
              registration.deviceId == device.id else {
            throw DomainError(.registrationRemoved, "The registration was removed or moved to another device")
        }
        return registration
    }

    /// The contract's order of state checks; a registration that is not active counts nothing.
    /// - Throws: `registrationRemoved`, `lockedByAdmin`, `registrationLocked`, `verificationPending`.
    func requireActive(_ registration: RegistrationRecord) throws {
        switch registration.registrationState {
        case .active: return
        case .removed: throw DomainError(.registrationRemoved, "The registration was removed")
        case .lockedByAdmin: throw DomainError(.lockedByAdmin, "The registration was locked by an operator")
        case .locked:
            throw DomainError(.registrationLocked, "The registration is locked after too many failed attempts",
                              [("remainingAttempts", .int(0))])
        case .verificationPending:
            throw DomainError(.verificationPending, "The registration waits for identity verification")
        }
    }

    func maxFailedAttempts(_ tx: StoreTransaction, _ registration: RegistrationRecord) throws -> Int {
        try application(tx, registration.applicationId).maxFailedAttempts
    }

    /// Has the device answer the session's challenge with `parameter`, and the server check it.
    /// A failure counts one attempt (and locks at the limit); a two-factor success resets the
    /// counter. The challenge is used up either way.
    /// - Throws: `biometryUnavailable`, `biometryFailed`, `biometryCancelled` (nothing counted),
    ///   `authenticationFailed`, `registrationLocked`.
    func verifyFactor(_ tx: StoreTransaction, _ effects: Effects, device: DeviceRecord, registration: inout RegistrationRecord,
                      session: OperationSessionRecord, _ parameter: AuthParameter, context: String?) throws {
        let factors = DeviceFactors(keychain: DeviceKeychain(tx: tx, deviceId: device.id), device: device, random: random)
        let message = FactorKey.challengeMessage(challenge: session.challenge, registrationId: registration.id,
                                                 counter: session.counter, context: context)
        let signatures = try factors.sign(message, parameter)
        try tx.delete(OperationSessionRecord.self, id: device.id)
        registration.lastAttempt = now
        registration.signCounter += 1
        let limit = try maxFailedAttempts(tx, registration)
        guard session.counter + 1 == registration.signCounter,
              registration.verifies(signatures, method: parameter.method, message: message) else {
            registration.failedAttempts += 1
            try audit(tx, effects, .authenticationFailed, userId: registration.userId, registrationId: registration.id,
                      deviceId: device.id, detail: parameter.method.rawValue)
            if registration.failedAttempts >= limit {
                registration.state = RegistrationState.locked.rawValue
                try tx.save(registration)
                try revokeTokens(tx, registrationId: registration.id)
                try audit(tx, effects, .registrationLocked, userId: registration.userId, registrationId: registration.id)
                throw DomainError(.registrationLocked, "Too many failed attempts: the registration is now locked",
                                  [("remainingAttempts", .int(0))])
            }
            try tx.save(registration)
            throw DomainError(.authenticationFailed, "Authentication failed",
                              [("remainingAttempts", .int(limit - registration.failedAttempts))])
        }
        if parameter.method.isTwoFactor { registration.failedAttempts = 0 }
        try tx.save(registration)
        try audit(tx, effects, .authenticationSucceeded, userId: registration.userId, registrationId: registration.id,
                  deviceId: device.id, detail: parameter.method.rawValue)
    }

    /// Signs a fresh challenge with the possession key alone (deactivations).
    func verifyPossession(_ tx: StoreTransaction, _ effects: Effects, device: DeviceRecord,
                          registration: inout RegistrationRecord) throws {
        try startSession(tx, deviceId: device.id, kind: .authentication, registration: registration)
        guard let session = try tx.fetch(OperationSessionRecord.self, id: device.id) else {
            throw DomainError(.noSessionInProgress, "No session")
        }
        try verifyFactor(tx, effects, device: device, registration: &registration, session: session,
                         AuthParameter(method: .device), context: nil)
    }
}
