import LatchkeyCore

/// Carries notifications between processes that share one store (PostgreSQL's outbox table, with LISTEN/NOTIFY as a wake-up), so a subscriber hears
/// what any process caused.
///
/// Each message is a notification as written on the wire; the topic says who may hear it. A relay never
/// hands a process its own messages back.
public protocol EventRelay: AnyObject, Sendable {
    /// Starts hearing the other processes (called on the first subscription).
    func start()
    /// Whether it hears the others (the loop then polls `receive` while idle).
    var isListening: Bool { get }
    /// Records the notifications a write transaction caused, in order, inside that transaction
    /// (before it commits), so they reach the others exactly when, and only if, it commits.
    /// - Throws: the store's failure (the transaction then rolls back, or runs again).
    func journal(_ notifications: [(topic: String, message: [UInt8])], in transaction: StoreTransaction) throws
    /// What the other processes caused since the last call, in commit order, each once, also
    /// across a lost connection or a failover.
    func receive() -> [(topic: String, message: [UInt8])]
    /// Housekeeping after this process's own calls (pruning what every process has read);
    /// cheap when there is nothing to do.
    func tidy()
}

/// How often an idle process that hears other processes looks for their notifications.
let relayPollMilliseconds = 100
