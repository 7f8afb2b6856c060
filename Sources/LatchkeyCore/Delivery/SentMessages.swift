import LatchkeyContract
import Synchronization

/// The messages sent on the simulated out-of-band channel (email, SMS): the last 1000, in
/// process memory only (it stands for the channel, not for server state; the PostgreSQL store's
/// outbox table is another thing: the notifications other processes relay).
public final class SentMessages: Sendable {
    public static let capacity = 1000
    /// A ring of at most `capacity` messages: once full, a new one takes the place of the oldest
    /// (`oldest` is its index), so a send costs the same whether 10 or 1000 are kept (security
    /// property 11: only a known identifier's message is kept).
    private let ring = Mutex<(messages: [OutboundMessage], oldest: Int)>(([], 0))
    /// The messages built for identifiers that name no one, kept as sent ones are and never listed (`withhold`).
    private let withheld = Mutex<(messages: [OutboundMessage], oldest: Int)>(([], 0))

    public init() {}

    func append(_ message: OutboundMessage) { Self.keep(message, in: ring) }

    /// Keeps a message that never leaves as a sent one is kept, at the same cost (security property 11), where nothing reads it.
    func withhold(_ message: OutboundMessage) { Self.keep(message, in: withheld) }

    private static func keep(_ message: OutboundMessage, in ring: borrowing Mutex<(messages: [OutboundMessage], oldest: Int)>) {
        ring.withLock { ring in
            if ring.messages.count < Self.capacity {
                ring.messages.append(message)
            } else {
                ring.messages[ring.oldest] = message
                ring.oldest = (ring.oldest + 1) % Self.capacity
            }
        }
    }

    /// Messages newest last, optionally only those to one address.
    public func list(to: String?) -> [OutboundMessage] {
        let all = ring.withLock { ring in Array(ring.messages[ring.oldest...] + ring.messages[..<ring.oldest]) }
        guard let to else { return all }
        let wanted = to.lowercased()
        return all.filter { $0.to.lowercased() == wanted }
    }

    public func message(id: String) -> OutboundMessage? {
        ring.withLock { ring in ring.messages.first { $0.id == id } }
    }
}
