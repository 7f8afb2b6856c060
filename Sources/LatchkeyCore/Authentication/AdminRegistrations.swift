import LatchkeyContract

extension Latchkey {
    func registrationInfo(_ tx: StoreTransaction, _ record: RegistrationRecord) throws -> RegistrationInfo {
        RegistrationInfo(
            registrationId: record.id, userId: record.userId, applicationId: record.applicationId, name: record.name,
            state: record.registrationState, authMethods: record.methods, failedAttempts: record.failedAttempts,
            maxFailedAttempts: try maxFailedAttempts(tx, record),
            recoveryMethods: record.recoveryPublicKey == nil ? [] : ["backup"], lastAttempt: record.lastAttempt)
    }

    /// A registration as an operator sees it.
    /// - Throws: `notFound` (registration).
    public func registrationInfo(_ registrationId: String) throws -> RegistrationInfo {
        try inspect { tx in
            tx.willRead(Self.registrationReads(.value(registrationId)) + [.rows(OnboardingProcessRecord.ofRegistration, .value(registrationId))])
            return try registrationInfo(tx, try registration(tx, registrationId))
        }
    }

    /// Every registration of a user, oldest first.
    /// - Throws: `notFound` (user).
    public func registrations(userId: String) throws -> [RegistrationInfo] {
        try inspect { tx in
            _ = try user(tx, userId)
            return try tx.fetchAll(RegistrationRecord.self, where: [.equals(RegistrationRecord.Columns.userId, userId)]).map {
                try registrationInfo(tx, $0)
            }
        }
    }

    /// An operator's change to a registration.
    ///
    /// A removed registration stays removed.
    /// - Throws: `notFound` (registration).
    public func changeRegistration(_ registrationId: String, _ change: AdminRegistrationChange) throws -> RegistrationInfo {
        try transact { tx, effects in
            tx.willRead(Self.registrationReads(.value(registrationId)) + [.rows(OnboardingProcessRecord.ofRegistration, .value(registrationId))])
            var record = try registration(tx, registrationId)
            if record.registrationState != .removed {
                try apply(change, to: &record, tx, effects)
                try tx.save(record)
            }
            return try registrationInfo(tx, record)
        }
    }

    private func apply(
        _ change: AdminRegistrationChange, to record: inout RegistrationRecord, _ tx: StoreTransaction,
        _ effects: Effects
    ) throws {
        let event: AuditEventType
        let previous = record.registrationState
        defer { registrationStateChanged(effects, record, from: previous) }
        switch change {
        case .remove, .lock:
            record.state = (change == .remove ? RegistrationState.removed : .lockedByAdmin).rawValue
            try revokeTokens(tx, registrationId: record.id)
            event = change == .remove ? .registrationRemoved : .registrationLockedByAdmin
        case .unlock:
            // Unlocking lifts a lock, never a pending verification: a registration onboarding made, locked before the operator
            // verified the user, is waiting for that verification again.
            if record.registrationState == .locked || record.registrationState == .lockedByAdmin {
                let awaitingVerification = try tx.fetchAll(OnboardingProcessRecord.ofRegistration, record.id)
                    .contains { $0.onboardingStatus == .verificationInProgress }
                record.state = (awaitingVerification ? RegistrationState.verificationPending : .active).rawValue
            }
            record.failedAttempts = 0
            record.recoveryFailedAttempts = 0
            event = .registrationUnlocked
        }
        try audit(tx, effects, event, userId: record.userId, registrationId: record.id)
    }
}

/// What an operator does to a registration.
public enum AdminRegistrationChange: Sendable {
    /// Removed for good (a stolen phone); its tokens die.
    case remove
    /// Locked by the operator (`lockedByAdmin`); its tokens die.
    case lock
    /// A lock lifted; the PIN and recovery counters reset.
    case unlock
}
