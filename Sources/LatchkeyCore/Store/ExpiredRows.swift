import LatchkeyContract
import LatchkeyStorage

/// How long a row stays in the store once it has expired, and how often what is past its use is forgotten.
///
/// Until `keptFor` has passed, an expired row answers as expired (`sessionExpired`, `verificationCodeExpired`); from then on it
/// answers as unknown, whether or not it has been deleted yet (`isForgotten`), so that no answer hangs on when rows were last
/// forgotten, or on how the clock got there. Rows that
/// anonymous callers leave behind (codes for unknown identifiers, rate-limit events), and the challenges of registrations never
/// issued another (removed ones), are forgotten every `forgetEvery`, in a transaction of their own: the first call after each hour
/// waits for it, but no request's own transaction holds it (nor, on PostgreSQL, conflicts over it).
enum ExpiredRows {
    static let keptFor: Int64 = 86_400
    static let forgetEvery: Int64 = 3_600

    /// Whether a row that expired (or ended) at `expiresAt` is past keeping at `now`: what `forgotten` selects.
    static func isForgotten(expiresAt: Int64, now: Int64) -> Bool { expiresAt < now - keptFor }

    /// The rows whose `expiresAt` column is past keeping at `now` (`isForgotten`): what the deletes by expiry take (onboarding
    /// processes go by their end, `createdAt` and their lifetime, to the same rule).
    static func forgotten<Column: RawRepresentable>(_ expiresAt: Column, now: Int64) -> StoreFilter where Column.RawValue == String {
        StoreFilter(expiresAt, .less, .int(now - keptFor))
    }
}

extension Latchkey {
    /// Every rate limit, each forgetting the events its window no longer holds.
    static let rateLimits = [
        resetBurstLimit, resetHourLimit, loginLimit, ServerSession.activationCodeLimit, ServerSession.applicationCodeLimit,
    ]

    /// Forgets, every `ExpiredRows.forgetEvery` from a process's first look, the rate-limit events no window holds, the
    /// reset codes, `server/` challenges, sessions and used tokens a day past their expiry, and the onboarding processes a day past
    /// their end that can answer nothing but `failed`.
    ///
    /// A failure forgets nothing and is not retried before the next time: it fails no call.
    func forgetExpiredRows() {
        let now = self.now
        let due = nextForgetting.withLock { next -> Bool in
            guard let at = next, now >= at else {
                if next == nil { next = now + ExpiredRows.forgetEvery }
                return false
            }
            next = now + ExpiredRows.forgetEvery
            return true
        }
        guard due else { return }
        do {
            try transact { tx, _ in
                for limit in Self.rateLimits {
                    try tx.deleteAll(
                        RateEventRecord.self,
                        where: [
                            .equals(RateEventRecord.Columns.scope, limit.scope),
                            StoreFilter(RateEventRecord.Columns.at, .lessOrEqual, .int(now - limit.window)),
                        ])
                }
                try tx.deleteAll(ResetCodeRecord.self, where: [ExpiredRows.forgotten(ResetCodeRecord.Columns.expiresAt, now: now)])
                // Sessions past their own expiry, which never open again (`isLive`), and used tokens, which answer as unknown ones do:
                // nothing answers otherwise once they are gone. An unused token stays: it answers `tokenExpired`.
                try tx.deleteAll(UserSessionRecord.self, where: [ExpiredRows.forgotten(UserSessionRecord.Columns.expiresAt, now: now)])
                try tx.deleteAll(
                    TokenRecord.self,
                    where: [.equals(TokenRecord.Columns.used, true), ExpiredRows.forgotten(TokenRecord.Columns.expiresAt, now: now)])
                // A registration forgets its own when it is issued another; these are those of registrations never issued one again.
                try tx.deleteAll(ChallengeRecord.self, where: [ExpiredRows.forgotten(ChallengeRecord.Columns.expiresAt, now: now)])
                // Failed ones (their OTP tries used up, or their 3 h over with no OTP: every start with credentials that match
                // nobody), and closed ones (cancelled, replaced). A device that still holds one hears `failed`, as for a process
                // unknown to the server. A finished one stays (its device reads `finished`), as does one awaiting verification.
                // Each by the whole prefix of the index on (status, closed, createdAt).
                let ended = now - OnboardingProcessRecord.lifetime - ExpiredRows.keptFor
                let forgotten = [(OnboardingStatus.failed, false)] + OnboardingStatus.allCases.map { ($0, true) }
                for (status, closed) in forgotten {
                    try tx.deleteAll(
                        OnboardingProcessRecord.self,
                        where: [
                            .equals(OnboardingProcessRecord.Columns.status, status.rawValue),
                            .equals(OnboardingProcessRecord.Columns.closed, closed),
                            StoreFilter(OnboardingProcessRecord.Columns.createdAt, .less, .int(ended)),
                        ])
                }
            }
        } catch {
            logger.warning("forgetting expired rows failed", metadata: ["error": "\(String(describing: type(of: error)))"])
        }
    }
}
