/// Carries notifications between processes that share one store (PostgreSQL's LISTEN/NOTIFY), so a subscriber hears what any process caused.
///
/// Each message is a notification as written on the wire; the topic says who may hear it. A relay never
/// hands a process its own messages back.
public protocol EventRelay: AnyObject, Sendable {
    /// Starts hearing the other processes (called on the first subscription).
    func start()
    /// Whether it hears the others (the loop then polls `receive` while idle).
    var isListening: Bool { get }
    /// Hands the notifications this process's committed transactions caused to the others, in order.
    func publish(_ notifications: [(topic: String, message: [UInt8])])
    /// What the other processes caused since the last call, in commit order.
    func receive() -> [(topic: String, message: [UInt8])]
}

/// How often an idle process that hears other processes looks for their notifications.
let relayPollMilliseconds = 100
