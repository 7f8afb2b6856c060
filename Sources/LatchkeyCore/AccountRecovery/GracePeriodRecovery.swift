import LatchkeyContract
import Synchronization

extension AccountRecoveryRecord {
    init(_ status: AccountRecoveryStatus) {
        id = status.uid
        state = status.state
        reason = status.reason?.rawValue ?? 0
        startTime = status.startTime
        endTime = status.endTime
    }

    /// The rows in `state`.
    static func inState(_ state: AccountRecoveryState) -> StoreFilter { .equals(Columns.state, Int64(state.rawValue)) }

    var status: AccountRecoveryStatus {
        AccountRecoveryStatus(
            uid: id, state: state,
            reason: AccountRecoveryReason(rawValue: reason), startTime: startTime, endTime: endTime)
    }
}

/// The copy a settings screen shows for the account-recovery state.
public struct SettingsItem: Sendable, Equatable {
    public var title: String
    public var subtitle: String
    public var canCancel: Bool
}

/// When the next time-driven transition is due, cached so the idle loop can ask cheaply.
final class DueCache: Sendable {
    private let state = Mutex<(value: UnixTime?, checkedAt: Int64, dirty: Bool)>((nil, 0, true))

    /// The cached value, or `compute`'s (a failure caches nothing and is rethrown).
    func get(nowMilliseconds: Int64, compute: () throws -> UnixTime?) throws -> UnixTime? {
        let cached = state.withLock { $0 }
        if !cached.dirty, nowMilliseconds - cached.checkedAt < 30_000 { return cached.value }
        let value = try compute()
        state.withLock { $0 = (value, nowMilliseconds, false) }
        return value
    }

    func invalidate() { state.withLock { $0.dirty = true } }
}

extension Latchkey {
    /// What settling a user's account recovery reads (found by `user`; none for nil): the user's
    /// row of it, and the server's lifetimes (a grace period's end starts the insecure window).
    static func accountRecoveryReads(_ user: StoreKey?) -> [StoreRead] {
        [Self.serverConfigRead] + (user.map { [.row(AccountRecoveryRecord.self, id: $0)] } ?? [])
    }

    /// A user's status with every transition that is due applied (grace end → insecure,
    /// window end → expired), each notified.
    func settledAccountRecovery(_ tx: StoreTransaction, _ effects: Effects, uid: String) throws -> AccountRecoveryStatus? {
        guard let record = try tx.fetch(AccountRecoveryRecord.self, id: uid) else { return nil }
        return try settle(tx, effects, record.status)
    }

    private func settle(_ tx: StoreTransaction, _ effects: Effects, _ status: AccountRecoveryStatus) throws -> AccountRecoveryStatus {
        var status = status
        while let end = status.endTime, end <= now {
            switch status.state {
            case .gracePeriod:
                let window = try serverConfig(tx).insecureWindowSeconds
                status = AccountRecoveryStatus(uid: status.uid, state: .insecure, reason: .notCancelled, startTime: end, endTime: end + window)
                try saveAccountRecovery(tx, effects, status)
                try audit(tx, effects, .accountRecoveryInsecure, userId: status.uid, at: end)
                if let user = try tx.fetch(UserRecord.self, id: status.uid) {
                    sendSecurityNotice(
                        effects, to: user, at: end,
                        "The grace period is over: your password can now be reset without the old one until \(Timestamp.format(end + window)). "
                            + "If this was not you, sign in to cancel."
                    )
                }
            case .insecure:
                status = AccountRecoveryStatus(uid: status.uid, state: .expired, reason: .notCancelled, startTime: end, endTime: nil)
                try saveAccountRecovery(tx, effects, status)
                try audit(tx, effects, .accountRecoveryExpired, userId: status.uid, at: end)
            default:
                return status
            }
        }
        return status
    }

    /// Stores a new status and notifies subscribers.
    func saveAccountRecovery(_ tx: StoreTransaction, _ effects: Effects, _ status: AccountRecoveryStatus) throws {
        try tx.save(AccountRecoveryRecord(status))
        effects.append(.accountRecoveryChanged(uid: status.uid, status: status))
        dueCache.invalidate()
    }

    /// When the next grace period or insecure window ends (nil: none).
    /// - Throws: `storeUnavailable` — never "nothing due" in its place.
    func accountRecoveryNextDue() throws -> UnixTime? {
        try dueCache.get(nowMilliseconds: clock.nowMilliseconds) {
            try inspect { tx in
                try [AccountRecoveryState.gracePeriod, .insecure].compactMap { state in
                    try tx.minimum(AccountRecoveryRecord.self, AccountRecoveryRecord.Columns.endTime, where: [AccountRecoveryRecord.inState(state)])
                }.min()
            }
        }
    }

    func runDueAccountRecoveryTransitions() throws {
        guard let due = try accountRecoveryNextDue(), due <= now else { return }
        try transact { tx, effects in
            for state in [AccountRecoveryState.gracePeriod, .insecure] {
                let rows = try tx.fetchAll(
                    AccountRecoveryRecord.self,
                    where: [AccountRecoveryRecord.inState(state), StoreFilter(AccountRecoveryRecord.Columns.endTime, .lessOrEqual, .int(now))])
                for row in rows { _ = try settle(tx, effects, row.status) }
            }
        }
        dueCache.invalidate()
    }

    /// Asks for a password reset: a grace period starts (allowed from states 0, 2 and 4).
    /// - Throws: `userSessionInvalid`, `accountRecoveryNotAllowed` (with `data.state`).
    public func startAccountRecovery(sessionId: String) throws -> AccountRecoveryStatus {
        try transact { tx, effects in
            let (_, user) = try sessionUser(tx, sessionId, also: Self.accountRecoveryReads)
            let current = try settledAccountRecovery(tx, effects, uid: user.id)
            if let current, ![.none, .cancelled, .expired].contains(current.state) {
                throw notAllowed(current.state, "An account recovery is in progress already")
            }
            let grace = try serverConfig(tx).gracePeriodSeconds
            let status = AccountRecoveryStatus(uid: user.id, state: .gracePeriod, reason: .notCancelled, startTime: now, endTime: now + grace)
            try saveAccountRecovery(tx, effects, status)
            try audit(tx, effects, .accountRecoveryStarted, userId: user.id)
            sendSecurityNotice(
                effects, to: user,
                "A password reset was requested for your account. It can proceed after \(Timestamp.format(now + grace)). If this was not you, "
                    + "sign in to cancel it."
            )
            return status
        }
    }

    /// The status and the settings-screen copy for it.
    /// - Throws: `userSessionInvalid`.
    public func accountRecoveryStatus(sessionId: String) throws -> (AccountRecoveryStatus?, SettingsItem) {
        try transact { tx, effects in
            let (_, user) = try sessionUser(tx, sessionId, also: Self.accountRecoveryReads)
            let status = try settledAccountRecovery(tx, effects, uid: user.id)
            return (status, settingsItem(status))
        }
    }

    /// Cancels a grace period (reason 1).
    /// - Throws: `userSessionInvalid`, `accountRecoveryNotAllowed` outside the grace period.
    public func cancelAccountRecovery(sessionId: String) throws -> AccountRecoveryStatus {
        try transact { tx, effects in
            let (_, user) = try sessionUser(tx, sessionId, also: Self.accountRecoveryReads)
            let current = try settledAccountRecovery(tx, effects, uid: user.id)
            guard let current, current.state == .gracePeriod else {
                throw notAllowed(current?.state ?? AccountRecoveryState.none, "Only a grace period can be cancelled")
            }
            let status = current.cancelled(.cancelledByUser, at: now)
            try saveAccountRecovery(tx, effects, status)
            try audit(tx, effects, .accountRecoveryCancelled, userId: user.id, detail: "user")
            return status
        }
    }

    /// Sets a new password without the old one, in the insecure window only; back to state 0.
    /// - Throws: `userSessionInvalid`, `accountRecoveryNotAllowed`, `policyViolation`.
    public func resetPasswordInWindow(sessionId: String, newPassword: String) throws -> AccountRecoveryStatus {
        let salt = random.bytes(16)
        // The slow hash is computed before the write lock is taken; a password off the policy has
        // none, and its refusal is answered where the policy is checked, after the state.
        let hash = Result { () throws -> [UInt8] in
            try Self.checkPasswordPolicy(newPassword)
            return try PasswordHash.hash(newPassword, salt: salt)
        }
        return try transact { tx, effects in
            let (session, user) = try sessionUser(tx, sessionId) { Self.accountRecoveryReads($0) + [.rows(UserSessionRecord.ofUser, $0)] }
            let current = try settledAccountRecovery(tx, effects, uid: user.id)
            guard let current, current.state == .insecure else {
                throw notAllowed(current?.state ?? AccountRecoveryState.none, "The password can be reset only in the insecure window")
            }
            // In the insecure window: the change returns the account to state 0.
            try changePassword(tx, effects, user: user, salt: salt, hash: hash.get(), keepSession: session.id, accountRecovery: current)
            return AccountRecoveryStatus(uid: user.id, state: .none, reason: nil, startTime: now, endTime: nil)
        }
    }

    private func notAllowed(_ state: AccountRecoveryState, _ message: String) -> DomainError {
        DomainError(.accountRecoveryNotAllowed, message, [(.state, .int(state.rawValue))])
    }

    /// The settings screen's copy for a status (none before the first start).
    func settingsItem(_ status: AccountRecoveryStatus?) -> SettingsItem {
        let end = status?.endTime ?? now
        let left = Self.describe(seconds: end - now)
        let until = Timestamp.format(end)
        switch status?.state ?? AccountRecoveryState.none {
        case .none:
            return SettingsItem(title: "Account recovery", subtitle: "If you forget your password, you can ask to reset it here.", canCancel: false)
        case .gracePeriod:
            return SettingsItem(
                title: "Password reset requested",
                subtitle: "You can reset your password in \(left), on \(until). Cancel it if this was not you.", canCancel: true)
        case .cancelled:
            let why = status?.reason == .newSession ? "because you signed in on a new session" : "by you"
            return SettingsItem(title: "Password reset cancelled", subtitle: "The password reset was cancelled \(why).", canCancel: false)
        case .insecure:
            return SettingsItem(
                title: "Reset your password",
                subtitle: "You can set a new password without the old one for \(left), until \(until).", canCancel: false)
        case .expired:
            return SettingsItem(
                title: "Password reset expired",
                subtitle: "The time to reset your password has passed. Ask again if you still need it.", canCancel: false)
        }
    }

    /// "2 days 23 hours", "5 minutes", "less than a minute".
    static func describe(seconds: Int64) -> String {
        let s = max(seconds, 0)
        let days = s / 86_400
        let hours = s % 86_400 / 3600
        let minutes = s % 3600 / 60
        func unit(_ n: Int64, _ name: String) -> String { "\(n) \(name)\(n == 1 ? "" : "s")" }
        if days > 0 { return hours > 0 ? "\(unit(days, "day")) \(unit(hours, "hour"))" : unit(days, "day") }
        if hours > 0 { return minutes > 0 ? "\(unit(hours, "hour")) \(unit(minutes, "minute"))" : unit(hours, "hour") }
        if minutes > 0 { return unit(minutes, "minute") }
        return "less than a minute"
    }
}
