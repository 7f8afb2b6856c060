/// What a started operation waits to finish.
enum OperationKind: String {
    case activation, authentication, addOrUpdate, recovery, recoveryAddOrUpdate, recoveryDelete
}

/// The server's side of a started operation on one device: a challenge and its context.
/// One per device; a new start replaces it. It expires 300 s after its start.
struct OperationSessionRecord: StoredRecord {
    static let table = "operation_session"
    /// The device id.
    var id: String
    var kind: String
    var registrationId: String?
    var activationCodeId: String?
    var onboardingProcessId: String?
    var pushedAuthenticationId: String?
    var challenge: [UInt8]
    var counter: Int64
    /// For token-authorised operations: when the authorising token would have expired.
    var tokenExpiresAt: Int64?
    var createdAt: Int64

    static let lifetime: Int64 = 300
}

extension Latchkey {
    /// The device's session of `kind`, checked for presence and age (the first checks of a finish).
    func openSession(_ tx: StoreTransaction, deviceId: String, kinds: [OperationKind]) throws -> OperationSessionRecord {
        guard let session = try tx.fetch(OperationSessionRecord.self, id: deviceId),
              let kind = OperationKind(rawValue: session.kind), kinds.contains(kind) else {
            throw DomainError(.noSessionInProgress, "No operation of this kind was started on this device")
        }
        guard now < session.createdAt + OperationSessionRecord.lifetime else {
            throw DomainError(.sessionExpired, "The operation was started more than 300 seconds ago; start it again")
        }
        return session
    }

    func startSession(_ tx: StoreTransaction, deviceId: String, kind: OperationKind, registration: RegistrationRecord?,
                      activationCodeId: String? = nil, onboardingProcessId: String? = nil,
                      pushedAuthenticationId: String? = nil, tokenExpiresAt: Int64? = nil) throws {
        try tx.save(OperationSessionRecord(
            id: deviceId, kind: kind.rawValue, registrationId: registration?.id, activationCodeId: activationCodeId,
            onboardingProcessId: onboardingProcessId, pushedAuthenticationId: pushedAuthenticationId,
            challenge: random.bytes(32), counter: registration?.signCounter ?? 0, tokenExpiresAt: tokenExpiresAt, createdAt: now))
    }
}
