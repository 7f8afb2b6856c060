import LatchkeyContract

extension Latchkey {
    /// What an operation on a registration reads, the registration given by id: the registration,
    /// its application and user. (A device's calls read more: `deviceReads`.)
    static func registrationReads(_ registration: StoreKey) -> [StoreRead] {
        [
            .row(RegistrationRecord.self, id: registration), applicationRead(ofRegistration: registration),
            .row(UserRecord.self, id: .column(RegistrationRecord.Columns.userId, of: RegistrationRecord.self, registration)),
        ]
    }

    /// The application of the registration `key` finds.
    static func applicationRead(ofRegistration key: StoreKey) -> StoreRead {
        .row(ApplicationRecord.self, id: .column(RegistrationRecord.Columns.applicationId, of: RegistrationRecord.self, key))
    }

    func registration(_ tx: StoreTransaction, _ registrationId: String) throws -> RegistrationRecord {
        guard let record = try tx.fetch(RegistrationRecord.self, id: registrationId) else { throw DomainError.notFound("registration") }
        return record
    }

    /// The contract's order of state checks; a registration that is not active counts nothing.
    /// - Throws: `registrationRemoved`, `lockedByAdmin`, `registrationLocked`, `verificationPending`.
    func requireActive(_ registration: RegistrationRecord) throws {
        if let refusal = registration.registrationState.refusal { throw refusal }
    }

    func maxFailedAttempts(_ tx: StoreTransaction, _ registration: RegistrationRecord) throws -> Int {
        try application(tx, registration.applicationId).maxFailedAttempts
    }
}
