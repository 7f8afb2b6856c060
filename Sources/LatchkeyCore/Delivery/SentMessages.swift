import LatchkeyContract
import Synchronization

/// The messages sent on the simulated out-of-band channel (email, SMS): the last 1000, in
/// process memory only (it stands for the channel, not for server state; the PostgreSQL store's
/// outbox table is another thing: the notifications other processes relay).
public final class SentMessages: Sendable {
    public static let capacity = 1000
    private let messages = Mutex<[OutboundMessage]>([])

    public init() {}

    func append(_ message: OutboundMessage) {
        messages.withLock { list in
            list.append(message)
            if list.count > Self.capacity { list.removeFirst(list.count - Self.capacity) }
        }
    }

    /// Messages newest last, optionally only those to one address.
    public func list(to: String?) -> [OutboundMessage] {
        messages.withLock { list in
            guard let to else { return list }
            let wanted = to.lowercased()
            return list.filter { $0.to.lowercased() == wanted }
        }
    }

    public func message(id: String) -> OutboundMessage? {
        messages.withLock { list in list.first { $0.id == id } }
    }
}
