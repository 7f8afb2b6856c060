extension Latchkey {
    func registrationInfo(_ tx: StoreTransaction, _ record: RegistrationRecord) throws -> RegistrationInfo {
        RegistrationInfo(registrationId: record.id, userId: record.userId, applicationId: record.applicationId,
                         state: record.registrationState, authMethods: record.methods, failedAttempts: record.failedAttempts,
                         maxFailedAttempts: try maxFailedAttempts(tx, record),
                         recoveryMethods: record.recoveryPublicKey == nil ? [] : ["backup"], lastAttempt: record.lastAttempt)
    }

    func registration(_ tx: StoreTransaction, _ registrationId: String) throws -> RegistrationRecord {
        guard let record = try tx.fetch(RegistrationRecord.self, id: registrationId) else { throw DomainError.notFound("registration") }
        return record
    }

    /// A registration as an operator sees it.
    /// - Throws: `notFound` (registration).
    public func registrationInfo(_ registrationId: String) throws -> RegistrationInfo {
        try inspect { tx in try registrationInfo(tx, try registration(tx, registrationId)) }
    }

    /// Every registration of a user, oldest first.
    /// - Throws: `notFound` (user).
    public func registrations(userId: String) throws -> [RegistrationInfo] {
        try inspect { tx in
            _ = try user(tx, userId)
            return try tx.fetchAll(RegistrationRecord.self, where: [.equals("userId", userId)]).map { try registrationInfo(tx, $0) }
        }
    }

    /// Removes a registration (a stolen phone); its tokens die.
    public func removeRegistration(_ registrationId: String) throws -> RegistrationInfo {
        try changeRegistration(registrationId) { tx, effects, record in
            guard record.registrationState != .removed else { return }
            record.state = RegistrationState.removed.rawValue
            try revokeTokens(tx, registrationId: record.id)
            try audit(tx, effects, .registrationRemoved, userId: record.userId, registrationId: record.id)
        }
    }

    /// Locks a registration by operator decision; its tokens die. A removed one stays removed.
    public func lockRegistration(_ registrationId: String) throws -> RegistrationInfo {
        try changeRegistration(registrationId) { tx, effects, record in
            guard record.registrationState != .removed else { return }
            record.state = RegistrationState.lockedByAdmin.rawValue
            try revokeTokens(tx, registrationId: record.id)
            try audit(tx, effects, .registrationLockedByAdmin, userId: record.userId, registrationId: record.id)
        }
    }

    /// Unlocks a registration: resets the PIN and recovery counters. Never lifts `removed`
    /// (nor a pending verification).
    public func unlockRegistration(_ registrationId: String) throws -> RegistrationInfo {
        try changeRegistration(registrationId) { tx, effects, record in
            guard record.registrationState != .removed else { return }
            if record.registrationState == .locked || record.registrationState == .lockedByAdmin {
                record.state = RegistrationState.active.rawValue
            }
            record.failedAttempts = 0
            record.recoveryFailedAttempts = 0
            try audit(tx, effects, .registrationUnlocked, userId: record.userId, registrationId: record.id)
        }
    }

    private func changeRegistration(_ registrationId: String,
                                    _ change: (StoreTransaction, Effects, inout RegistrationRecord) throws -> Void) throws -> RegistrationInfo {
        try transact { tx, effects in
            var record = try registration(tx, registrationId)
            try change(tx, effects, &record)
            try tx.save(record)
            return try registrationInfo(tx, record)
        }
    }
}
