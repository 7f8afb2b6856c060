/// The grace-period account-recovery states of the contract (written as integers).
public enum AccountRecoveryState: Int, Sendable, CaseIterable {
    case none = 0, gracePeriod = 1, cancelled = 2, insecure = 3, expired = 4
}

/// Why the state is what it is.
public enum AccountRecoveryReason: Int, Sendable, CaseIterable {
    case none = 0, cancelledByUser = 1, newSession = 2
}

/// A user's account-recovery status: the state, why, and when it began and ends.
public struct AccountRecoveryStatus: Sendable, Equatable {
    public var uid: String
    public var state: AccountRecoveryState
    public var reason: AccountRecoveryReason
    public var startTime: UnixTime
    /// When the state ends by itself; nil where it never does.
    public var endTime: UnixTime?

    public init(uid: String, state: AccountRecoveryState, reason: AccountRecoveryReason, startTime: UnixTime, endTime: UnixTime?) {
        self.uid = uid
        self.state = state
        self.reason = reason
        self.startTime = startTime
        self.endTime = endTime
    }
}
