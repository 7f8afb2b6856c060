import LatchkeyContract

extension ChallengeRecord {
    /// Used-up rows are deleted; expired ones are kept `ExpiredRows.keptFor` (they answer `sessionExpired`).
    static let lifetime: Int64 = 300
    /// A registration's challenges (and grants), oldest first.
    static let ofRegistration = KeyedQuery<ChallengeRecord>(Columns.registrationId)
}

/// What a challenge was issued for, as the store keeps it.
enum ChallengeKind: String {
    case authenticate, removeRegistration, addAuthMethod, recover, addOrUpdateRecovery, deleteRecovery
    /// Approving or rejecting one operation (`ChallengeRecord.operationId`).
    case operation

    init(_ purpose: ChallengePurpose) {
        switch purpose {
        case .authenticate: self = .authenticate
        case .removeRegistration: self = .removeRegistration
        case .addAuthMethod: self = .addAuthMethod
        }
    }

    init?(grant purpose: TokenPurpose) {
        switch purpose {
        case .addOrUpdateRecovery: self = .addOrUpdateRecovery
        case .deleteRecovery: self = .deleteRecovery
        case .none: return nil
        }
    }
}

extension ServerSession {
    /// Issues a challenge (or a grant) for a registration.
    func issueChallenge(
        _ registration: RegistrationRecord, _ kind: ChallengeKind, challenge: String? = nil, contextHash: String = "",
        pushedAuthenticationId: String? = nil, tokenExpiresAt: Int64? = nil, caller: Caller? = nil, operationId: String? = nil
    ) throws -> ChallengeRecord {
        try tx.deleteAll(
            ChallengeRecord.self,
            where: [
                .equals(ChallengeRecord.Columns.registrationId, registration.id),
                ExpiredRows.forgotten(ChallengeRecord.Columns.expiresAt, now: now),
            ])
        let record = ChallengeRecord(
            id: random.uuid(), registrationId: registration.id, purpose: kind.rawValue, challenge: challenge ?? random.secret(byteCount: 32),
            contextHash: contextHash, pushedAuthenticationId: pushedAuthenticationId, tokenExpiresAt: tokenExpiresAt,
            expiresAt: now + ChallengeRecord.lifetime, createdAt: now, caller: caller?.key, operationId: operationId)
        try tx.save(record)
        return record
    }

    /// A live challenge of this registration that serves one of `kinds`.
    /// - Throws: `noSessionInProgress` (unknown, used up, another registration's or another
    ///   operation's), `sessionExpired`.
    func openChallenge(_ challengeId: String, registrationId: String, serving kinds: [ChallengeKind]) throws -> ChallengeRecord {
        let record = try knownChallenge(challengeId, registrationId: registrationId, serving: kinds)
        try requireUnexpired(record)
        return record
    }

    /// A challenge of this registration that serves one of `kinds`, live or expired (an expired one is known
    /// `ExpiredRows.keptFor`).
    /// - Throws: `noSessionInProgress` (unknown, used up, another registration's or another operation's, or forgotten).
    func knownChallenge(_ challengeId: String, registrationId: String, serving kinds: [ChallengeKind]) throws -> ChallengeRecord {
        guard let record = try tx.fetch(ChallengeRecord.self, id: challengeId), record.registrationId.isSameId(as: registrationId),
            let kind = ChallengeKind(rawValue: record.purpose), kinds.contains(kind),
            !ExpiredRows.isForgotten(expiresAt: record.expiresAt, now: now)
        else {
            throw DomainError(.noSessionInProgress, "No operation of this kind was started for this registration")
        }
        return record
    }

    /// - Throws: `sessionExpired` once the challenge's time is over (valid while `now < expiresAt`).
    func requireUnexpired(_ challenge: ChallengeRecord) throws {
        guard now < challenge.expiresAt else {
            throw DomainError(.sessionExpired, "The operation was started 300 seconds ago or more; start it again")
        }
    }

    /// Uses a challenge up.
    func useUp(_ challenge: ChallengeRecord) throws {
        try tx.delete(ChallengeRecord.self, id: challenge.id)
    }
}
