import LatchkeyContract

/// The grace-period account-recovery states of the contract (written as integers).
public enum AccountRecoveryState: Int, Sendable, CaseIterable {
    case none = 0
    case gracePeriod = 1
    case cancelled = 2
    case insecure = 3
    case expired = 4
}

/// Why the state is what it is, while a process is ongoing (the seed's nullable reason).
public enum AccountRecoveryReason: Int, Sendable, CaseIterable {
    /// The process has not been cancelled (states 1, 3 and 4). Not `none`, which a
    /// `AccountRecoveryReason?` would read as `Optional.none`.
    case notCancelled = 0
    /// Cancelled by the user (state 2).
    case cancelledByUser = 1
    /// Cancelled by a sign-in in a new session (state 2).
    case newSession = 2
}

/// A user's account-recovery status: the state, why, and when it began and ends.
public struct AccountRecoveryStatus: Sendable, Equatable {
    public var uid: String
    public var state: AccountRecoveryState
    /// nil when no process is ongoing (state 0).
    public var reason: AccountRecoveryReason?
    public var startTime: UnixTime
    /// When the state ends by itself; nil where it never does.
    public var endTime: UnixTime?

    public init(uid: String, state: AccountRecoveryState, reason: AccountRecoveryReason?, startTime: UnixTime, endTime: UnixTime?) {
        self.uid = uid
        self.state = state
        self.reason = state == .none ? nil : (reason ?? .notCancelled)
        self.startTime = startTime
        self.endTime = endTime
    }
}

extension AccountRecoveryStatus {
    /// The process cancelled now, for `reason`.
    func cancelled(_ reason: AccountRecoveryReason, at time: UnixTime) -> AccountRecoveryStatus {
        AccountRecoveryStatus(uid: uid, state: .cancelled, reason: reason, startTime: time, endTime: nil)
    }
}
