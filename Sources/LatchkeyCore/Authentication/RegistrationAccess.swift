import LatchkeyContract

extension Latchkey {
    func registration(_ tx: StoreTransaction, _ registrationId: String) throws -> RegistrationRecord {
        guard let record = try tx.fetch(RegistrationRecord.self, id: registrationId) else { throw DomainError.notFound("registration") }
        return record
    }

    /// The contract's order of state checks; a registration that is not active counts nothing.
    /// - Throws: `registrationRemoved`, `lockedByAdmin`, `registrationLocked`, `verificationPending`.
    func requireActive(_ registration: RegistrationRecord) throws {
        switch registration.registrationState {
        case .active: return
        case .removed: throw DomainError(.registrationRemoved, "The registration was removed")
        case .lockedByAdmin: throw DomainError(.lockedByAdmin, "The registration was locked by an operator")
        case .locked:
            throw DomainError(
                .registrationLocked, "The registration is locked after too many failed attempts",
                [(.remainingAttempts, .int(0))])
        case .verificationPending:
            throw DomainError(.verificationPending, "The registration waits for identity verification")
        }
    }

    func maxFailedAttempts(_ tx: StoreTransaction, _ registration: RegistrationRecord) throws -> Int {
        try application(tx, registration.applicationId).maxFailedAttempts
    }
}
