/// What `authMethod/startAddOrUpdate` tells the app: what a started authentication does (no
/// pushed authentication is picked up), and the methods it may add or update.
public struct AddOrUpdateOffer: Sendable, Equatable {
    public var allowedAuthMethodsToActivate: [AuthMethod]
    public var challenge: AuthenticationChallengeInfo
}

extension Latchkey {
    /// Opens an add-or-update session.
    /// - Throws: `notFound`, `notActivatedLocally`, the state errors.
    public func startAddOrUpdate(deviceId: String) throws -> AddOrUpdateOffer {
        try transact { tx, _ in
            let (device, registration) = try deviceRegistration(tx, deviceId: deviceId)
            try requireActive(registration)
            let app = try application(tx, registration.applicationId)
            let challenge = try challengeInfo(tx, device, registration, app, pushed: nil)
            let offered = methodsOffered(app, device)
            let allowed = AuthMethod.canonical(challenge.authenticationMethods.flatMap { app.methodsAddableBy($0) }.filter(offered.contains))
            try startSession(tx, deviceId: deviceId, kind: .addOrUpdate, registration: registration)
            return AddOrUpdateOffer(allowedAuthMethodsToActivate: allowed, challenge: challenge)
        }
    }

    /// Adds or updates `activation` (a new PIN, a biometric method) after `proof` verifies.
    /// - Throws: the finish checks, `authMethodNotAllowed`, `biometryUnavailable`, `policyViolation`,
    ///   the biometric errors, `authenticationFailed`, `registrationLocked`.
    public func finishAddOrUpdate(deviceId: String, activation: AuthParameter, proof: AuthParameter) throws -> [AuthMethod] {
        try transact { tx, effects in
            let device = try device(tx, deviceId)
            let session = try openSession(tx, deviceId: deviceId, kinds: [.addOrUpdate])
            var registration = try registration(tx, heldBy: device)
            try requireActive(registration)
            let app = try application(tx, registration.applicationId)
            guard registration.methods.contains(proof.method) else {
                throw DomainError(.authMethodNotAllowed, "\(proof.method.rawValue) is not activated for this registration")
            }
            if activation.method.isTwoFactor, !proof.method.isTwoFactor {
                throw DomainError(.authMethodNotAllowed, "A single-factor method cannot add a two-factor one")
            }
            guard app.methodsAddableBy(proof.method).contains(activation.method), app.authMethods.contains(activation.method) else {
                throw DomainError(.authMethodNotAllowed, "\(proof.method.rawValue) may not add or update \(activation.method.rawValue)")
            }
            guard device.supports(activation.method) else {
                throw DomainError(.biometryUnavailable, "This device has no \(activation.method.rawValue)")
            }
            if activation.method == .pin { try PinPolicy(app).check(activation.pin ?? "") }
            let factors = DeviceFactors(keychain: DeviceKeychain(tx: tx, deviceId: deviceId), device: device, random: random)
            try factors.checkBiometry(activation.method)
            try verifyFactor(tx, effects, device: device, registration: &registration, session: session, proof, context: nil)
            let existed = registration.methods.contains(activation.method)
            if activation.method.isTwoFactor {
                registration.setPublicKey(try factors.createFactorKey(activation), for: activation.method)
            }
            registration.authMethods = AuthMethod.text(registration.methods + [activation.method])
            try tx.save(registration)
            try factors.keychain.setActivatedMethods(registration.methods)
            try audit(tx, effects, existed ? .authMethodUpdated : .authMethodAdded, userId: registration.userId,
                      registrationId: registration.id, deviceId: deviceId, detail: activation.method.rawValue)
            return registration.methods
        }
    }

    /// Removes a method from the registration and the device, after a device authentication.
    /// - Throws: `cannotDeactivateDevice`, `authMethodNotAllowed` (not activated), the state errors.
    public func deactivateAuthMethod(deviceId: String, _ method: AuthMethod) throws -> [AuthMethod] {
        guard method != .device else {
            throw DomainError(.cannotDeactivateDevice, "The device method cannot be deactivated; deactivate the registration instead")
        }
        return try transact { tx, effects in
            let (device, registrationFound) = try deviceRegistration(tx, deviceId: deviceId)
            var registration = registrationFound
            try requireActive(registration)
            guard registration.methods.contains(method) else {
                throw DomainError(.authMethodNotAllowed, "\(method.rawValue) is not activated for this registration")
            }
            try verifyPossession(tx, effects, device: device, registration: &registration)
            registration.setPublicKey(nil, for: method)
            registration.authMethods = AuthMethod.text(registration.methods.filter { $0 != method })
            try tx.save(registration)
            let factors = DeviceFactors(keychain: DeviceKeychain(tx: tx, deviceId: deviceId), device: device, random: random)
            try factors.removeFactorKey(method)
            try factors.keychain.setActivatedMethods(registration.methods)
            try audit(tx, effects, .authMethodDeactivated, userId: registration.userId, registrationId: registration.id,
                      deviceId: deviceId, detail: method.rawValue)
            return registration.methods
        }
    }
}
