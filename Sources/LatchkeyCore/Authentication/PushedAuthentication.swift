import LatchkeyContract

/// Where a pushed authentication stands.
public enum PushedAuthenticationStatus: String, Sendable, CaseIterable { case pending, approved, rejected, expired }

/// A pushed authentication as an operator sees it.
public struct PushedAuthenticationInfo: Sendable, Equatable {
    public var authenticationId: String
    public var registrationId: String
    public var status: PushedAuthenticationStatus
    public var contextTitle: String?
    public var decidedAt: UnixTime?
}

/// What an operator pushes.
public struct NewPushedAuthentication: Sendable {
    public var registrationId: String
    public var contextTitle: String?
    public var contextContent: String?
    public var contextMIME: String?
    public var ttlSeconds: Int64

    public init(
        registrationId: String = "", contextTitle: String? = nil, contextContent: String? = nil, contextMIME: String? = nil,
        ttlSeconds: Int64 = 300
    ) {
        self.registrationId = registrationId
        self.contextTitle = contextTitle
        self.contextContent = contextContent
        self.contextMIME = contextMIME
        self.ttlSeconds = ttlSeconds
    }
}

extension Latchkey {
    /// Pushes an authentication; the registration's next `authentication/start` picks it up.
    /// - Throws: `notFound` (registration).
    public func pushAuthentication(_ new: NewPushedAuthentication) throws -> (authenticationId: String, expiresAt: UnixTime) {
        try transact { tx, effects in
            guard let registration = try tx.fetch(RegistrationRecord.self, id: new.registrationId) else {
                throw DomainError.notFound("registration")
            }
            let record = PushedAuthenticationRecord(
                id: random.identifier("auth"), registrationId: registration.id, contextTitle: new.contextTitle,
                contextContent: new.contextContent, contextMIME: new.contextMIME, status: PushedAuthenticationStatus.pending.rawValue,
                expiresAt: now + new.ttlSeconds, decidedAt: nil, createdAt: now)
            try tx.save(record)
            try audit(tx, effects, .pushedAuthenticationCreated, userId: registration.userId, registrationId: registration.id)
            return (record.id, record.expiresAt)
        }
    }

    /// A pushed authentication's status (`expired` once its time is over undecided).
    /// - Throws: `notFound` (authentication).
    public func pushedAuthentication(_ authenticationId: String) throws -> PushedAuthenticationInfo {
        try inspect { tx in
            guard let record = try tx.fetch(PushedAuthenticationRecord.self, id: authenticationId) else {
                throw DomainError.notFound("authentication")
            }
            var status = PushedAuthenticationStatus(rawValue: record.status) ?? .pending
            if status == .pending, now >= record.expiresAt { status = .expired }
            return PushedAuthenticationInfo(
                authenticationId: record.id, registrationId: record.registrationId, status: status,
                contextTitle: record.contextTitle, decidedAt: record.decidedAt)
        }
    }

    /// How many of a registration's newest pending pushed authentications a challenge reads.
    static let pendingPushesRead = 8

    /// The read of a registration's newest pending pushed authentications, expired or not.
    ///
    /// It does not depend on the time, so a caller can state it before it knows the time it reads
    /// them at (a phone, through the registration in its keychain).
    static let pendingPushes = KeyedQuery<PushedAuthenticationRecord>(
        PushedAuthenticationRecord.Columns.registrationId,
        and: [.equals(PushedAuthenticationRecord.Columns.status, PushedAuthenticationStatus.pending.rawValue)], newestFirst: true,
        limit: pendingPushesRead)

    /// A registration's newest pending, unexpired pushed authentication, from `pendingPushes`.
    ///
    /// An unexpired one among the newest is the newest unexpired of all. When every one read has
    /// expired and there may be more, an older one may outlive them (time to live varies): those
    /// are asked for by expiry.
    func pendingPushedAuthentication(_ tx: StoreTransaction, of registrationId: String) throws -> PushedAuthenticationRecord? {
        let newest = try tx.fetchAll(Self.pendingPushes, registrationId)
        if let live = newest.first(where: { $0.expiresAt > now }) { return live }
        guard newest.count == Self.pendingPushesRead else { return nil }
        let unexpired = StoreFilter(PushedAuthenticationRecord.Columns.expiresAt, .greaterOrEqual, .int(now + 1))
        return try tx.fetchAll(
            PushedAuthenticationRecord.self, where: Self.pendingPushes.query(registrationId).filters + [unexpired], newestFirst: true, limit: 1
        ).first
    }
}
