extension Latchkey {
    /// Deactivates the device's registration: on the server too, unless `onlyLocally`.
    /// - Throws: `notFound` (device), `notActivatedLocally`, `registrationRemoved` (the keys moved
    ///   elsewhere: the other device's registration is left alone).
    public func deactivateRegistration(deviceId: String, onlyLocally: Bool) throws {
        try transact { tx, effects in
            let device = try device(tx, deviceId)
            let keychain = DeviceKeychain(tx: tx, deviceId: deviceId)
            guard let registrationId = try keychain.string(.registrationId) else {
                throw DomainError(.notActivatedLocally, "This device holds no activation")
            }
            if !onlyLocally, var registration = try tx.fetch(RegistrationRecord.self, id: registrationId) {
                guard registration.deviceId == deviceId else {
                    throw DomainError(.registrationRemoved, "The registration was moved to another device")
                }
                if registration.registrationState != .removed {
                    // Proof of possession: the phone signs a fresh challenge (it counts nothing on success).
                    let message = FactorKey.challengeMessage(challenge: random.bytes(32), registrationId: registration.id,
                                                             counter: registration.signCounter, context: nil)
                    let possession = FactorKey.sign(message, with: try keychain.get(.possessionKey) ?? [])
                    guard FactorKey.verify(possession, over: message, publicKey: registration.possessionPublicKey) else {
                        throw DomainError(.registrationRemoved, "The device's keys do not match the registration")
                    }
                    registration.state = RegistrationState.removed.rawValue
                    try tx.save(registration)
                    try revokeTokens(tx, registrationId: registration.id)
                }
            }
            try keychain.wipeActivation()
            try tx.delete(OperationSessionRecord.self, id: device.id)
            let owner = try tx.fetch(RegistrationRecord.self, id: registrationId)?.userId
            try audit(tx, effects, .registrationDeactivated, userId: owner, registrationId: registrationId, deviceId: deviceId,
                      detail: onlyLocally ? "local" : "server")
        }
    }

    /// Cancels the operation in progress on the device; a pushed authentication in hand is rejected.
    /// - Throws: `notFound` (device).
    public func cancelSession(deviceId: String) throws -> Bool {
        try transact { tx, effects in
            _ = try device(tx, deviceId)
            guard let session = try tx.fetch(OperationSessionRecord.self, id: deviceId) else { return false }
            try tx.delete(OperationSessionRecord.self, id: deviceId)
            if let pushedId = session.pushedAuthenticationId, var pushed = try tx.fetch(PushedAuthenticationRecord.self, id: pushedId),
               pushed.status == PushedAuthenticationStatus.pending.rawValue {
                pushed.status = PushedAuthenticationStatus.rejected.rawValue
                pushed.decidedAt = now
                try tx.save(pushed)
                try audit(tx, effects, .pushedAuthenticationRejected, registrationId: pushed.registrationId, deviceId: deviceId)
            }
            return true
        }
    }
}
