import Crypto
import LatchkeyContract

/// A user as `user/get` shows them.
public struct UserProfile: Sendable, Equatable {
    public var uid: String
    public var email: String?
    public var phoneNumber: String?
    public var accountRecovery: AccountRecoveryStatus?
}

extension UserSessionRecord {
    /// A user's sessions.
    static let ofUser = KeyedQuery<UserSessionRecord>(Columns.userId)
}

extension Latchkey {
    /// Failed logins: 5 per identifier in 15 minutes, known or not.
    static let loginLimit = RateLimit(scope: "login", limit: 5, window: 900)

    /// Signs a user in.
    ///
    /// The password check costs the same for unknown users; a new session cancels a grace period or an insecure window in progress (state
    /// 2, reason 2).
    /// - Throws: `rateLimited`, `invalidCredentials`.
    public func login(_ identifier: UserIdentifier, password: String) throws -> (sessionId: String, uid: String) {
        let subject = secretHash(identifier.key, purpose: "login")
        let candidate: UserRecord? = try inspect { tx in
            tx.willRead([.rows(Self.loginLimit.events(of: subject)), identifier.lookup.read])
            if let wait = try Self.loginLimit.retryAfter(tx, subject: subject, now: now) {
                throw DomainError.rateLimited(retryAfter: wait, "too many failed logins")
            }
            return try user(tx, matching: identifier)
        }
        // The slow hash runs outside the write lock, and for unknown users too.
        let matches = try PasswordHash.verify(password, salt: candidate?.passwordSalt, hash: candidate?.passwordHash)
        return try transact { tx, effects in
            tx.willRead(
                [.rows(Self.loginLimit.events(of: subject))] + (candidate.map { [.row(UserRecord.self, id: $0.id)] } ?? [])
                    + Self.accountRecoveryReads(candidate.map { .value($0.id) }))
            if let wait = try Self.loginLimit.retryAfter(tx, subject: subject, now: now) {
                throw DomainError.rateLimited(retryAfter: wait, "too many failed logins")
            }
            guard matches, let user = candidate, try tx.fetch(UserRecord.self, id: user.id)?.passwordHash == user.passwordHash else {
                try Self.loginLimit.record(tx, subject: subject, now: now, id: random.identifier("rate"))
                try audit(tx, effects, .loginFailed, userId: candidate?.id ?? Self.nobody)
                throw DomainError(.invalidCredentials, "The identifier or the password is wrong")
            }
            try Self.loginLimit.clear(tx, subject: subject)
            let sessionId = try openSession(tx, effects, userId: user.id)
            try audit(tx, effects, .loginSucceeded, userId: user.id)
            return (sessionId, user.id)
        }
    }

    /// Opens a session for a user who just proved themselves (a password, a passkey): it cancels
    /// a grace period or an insecure window in progress (state 2, reason 2).
    func openSession(_ tx: StoreTransaction, _ effects: Effects, userId: String) throws -> String {
        let sessionId = random.secret(byteCount: 32)
        let lifetime = try serverConfig(tx).sessionLifetimeSeconds
        try tx.save(
            UserSessionRecord(
                id: secretHash(sessionId, purpose: "session"), userId: userId,
                createdAt: now, expiresAt: now + lifetime))
        if let recovery = try settledAccountRecovery(tx, effects, uid: userId),
            recovery.state == .gracePeriod || recovery.state == .insecure
        {
            try saveAccountRecovery(tx, effects, recovery.cancelled(.newSession, at: now))
            try audit(tx, effects, .accountRecoveryCancelled, userId: userId, detail: "newSession")
        }
        return sessionId
    }

    /// The user behind a live session.
    ///
    /// What the operation reads first, it states first: the session, its user, the server's settings (the session lifetime in
    /// force), and `also`: what the operation reads of that user, by the user's id found through the session.
    /// - Throws: `userSessionInvalid`.
    func sessionUser(
        _ tx: StoreTransaction, _ sessionId: String, also: (StoreKey) -> [StoreRead] = { _ in [] }
    ) throws -> (UserSessionRecord, UserRecord) {
        let id = secretHash(sessionId, purpose: "session")
        let owner = StoreKey.column(UserSessionRecord.Columns.userId, of: UserSessionRecord.self, .value(id))
        tx.willRead(
            [.row(UserSessionRecord.self, id: id), .row(UserRecord.self, id: owner), Self.serverConfigRead]
                + also(owner))
        guard let session = try tx.fetch(UserSessionRecord.self, id: id) ?? tx.fetch(UserSessionRecord.self, id: Self.upgradedSessionId(sessionId)),
            try isLive(tx, session), let user = try tx.fetch(UserRecord.self, id: session.userId)
        else {
            throw DomainError(.userSessionInvalid, "The session is unknown, ended or expired")
        }
        return (session, user)
    }

    /// The row id of a session opened by the release before keyed hashes.
    ///
    /// That release stored a session under the plain SHA-256 of `session\0<id>`, from which no keyed hash can be made, so such a
    /// session is found by that digest until it ends (its lifetime at most). Looked for only when the keyed row is not there (one
    /// read more for an unknown session); nothing is stored under it now.
    static func upgradedSessionId(_ sessionId: String) -> String {
        SecretHash.hex(SHA256.hash(data: Array(("session\u{0}" + sessionId).utf8)).byteArray)
    }

    /// Whether `session` is live now: before its own expiry, and within the session lifetime in force (`sessionLifetimeSeconds` is
    /// a session's most, so an operator's shorter setting ends older sessions at once).
    func isLive(_ tx: StoreTransaction, _ session: UserSessionRecord) throws -> Bool {
        try now < session.expiresAt && now < session.createdAt + serverConfig(tx).sessionLifetimeSeconds
    }

    /// A shorter session lifetime: every session already older than `lifetime` ends at `now`, and the others' expiry becomes their
    /// start plus `lifetime`, so a longer lifetime set later brings none back (a session that ended stays ended, and the passkey
    /// ceremonies it opened void: security property 10).
    func endSessions(_ tx: StoreTransaction, olderThan lifetime: Int64, at now: UnixTime) throws {
        let survivors = try tx.fetchAll(Self.sessionsYoungerThan(lifetime, now: now))
        try tx.deleteAll(
            UserSessionRecord.self, where: [StoreFilter(UserSessionRecord.Columns.createdAt, .lessOrEqual, .int(now - lifetime))])
        for var session in survivors where session.expiresAt > session.createdAt + lifetime {
            session.expiresAt = session.createdAt + lifetime
            try tx.save(session)
        }
    }

    /// The sessions a lifetime of `lifetime` seconds leaves alive at `now`.
    static func sessionsYoungerThan(_ lifetime: Int64, now: UnixTime) -> StoreQuery<UserSessionRecord> {
        StoreQuery(where: [StoreFilter(UserSessionRecord.Columns.createdAt, .greaterOrEqual, .int(now - lifetime + 1))])
    }

    /// Ends a session, or every session of its user.
    /// - Throws: `userSessionInvalid`.
    public func logout(sessionId: String, all: Bool) throws {
        try transact { tx, effects in
            let (session, user) = try sessionUser(tx, sessionId)
            if all {
                try tx.deleteAll(UserSessionRecord.self, where: [.equals(UserSessionRecord.Columns.userId, user.id)])
            } else {
                try tx.delete(UserSessionRecord.self, id: session.id)
            }
            try audit(tx, effects, .logout, userId: user.id, detail: all ? "all" : nil)
        }
    }

    /// The signed-in user with their account-recovery status.
    /// - Throws: `userSessionInvalid`.
    public func profile(sessionId: String) throws -> UserProfile {
        try transact { tx, effects in
            let (_, user) = try sessionUser(tx, sessionId, also: Self.accountRecoveryReads)
            return UserProfile(
                uid: user.id, email: user.email, phoneNumber: user.phoneNumber,
                accountRecovery: try settledAccountRecovery(tx, effects, uid: user.id))
        }
    }

    /// Sets a new password: every other session ends, outstanding reset codes die, and an account in
    /// its insecure window (state 3; `accountRecovery` is the user's, settled) returns to state 0, announced.
    func changePassword(
        _ tx: StoreTransaction, _ effects: Effects, user: UserRecord, salt: [UInt8], hash: [UInt8],
        keepSession: String?, accountRecovery: AccountRecoveryStatus?
    ) throws {
        var user = user
        user.passwordSalt = salt
        user.passwordHash = hash
        try tx.save(user)
        for session in try tx.fetchAll(UserSessionRecord.ofUser, user.id) where session.id != keepSession {
            try tx.delete(UserSessionRecord.self, id: session.id)
        }
        try tx.deleteAll(ResetCodeRecord.self, where: [.equals(ResetCodeRecord.Columns.userId, user.id)])
        try audit(tx, effects, .passwordChanged, userId: user.id)
        sendSecurityNotice(effects, to: user, "Your password was changed. If this was not you, contact support.")
        if accountRecovery?.state == .insecure {
            try saveAccountRecovery(tx, effects, AccountRecoveryStatus(uid: user.id, state: .none, reason: nil, startTime: now, endTime: nil))
        }
    }

    /// The password policy: at least 8 characters.
    /// - Throws: `policyViolation`.
    static func checkPasswordPolicy(_ password: String) throws {
        guard password.count >= 8 else {
            throw DomainError(.policyViolation, "The password must have at least 8 characters", [(.violations, .strings(["tooShort"]))])
        }
    }
}
