import Logging
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The whole system — server authority and simulated devices — over one store, clock and
/// random source. Each flow family adds its operations in an extension, one file per concept.
public final class Latchkey: Sendable {
    public let store: Store
    public let clock: Clock
    public let random: RandomSource
    public let outbox: Outbox
    let logger: Logger
    /// The event handler, boxed: a closure kept directly in a `Mutex` is re-abstracted (wrapped
    /// in a new thunk) on every read, which grows without bound in a long-lived process.
    private let sink: Mutex<EventSink>
    let secretKeyCache = Mutex<[UInt8]?>(nil)
    let dueCache = DueCache()
    /// Names this process: state that must not outlive it (an onboarding process started
    /// without `canRestoreSession`) is tagged with it. Not secret, never written out.
    let instanceId = "pid-\(getpid())-\(SystemClock().nowMilliseconds)"

    /// Opens the system over a store; makes the store's keyed-hash key on first use.
    /// - Throws: a store failure.
    public init(store: Store, clock: Clock, random: RandomSource, logger: Logger = Logger(label: "latchkey.core")) throws {
        self.store = store
        self.clock = clock
        self.random = random
        self.logger = logger
        outbox = Outbox()
        sink = Mutex(EventSink { _ in })
        let key = try store.secretKey { random.bytes(32) }
        secretKeyCache.withLock { $0 = key }
    }

    /// Where committed events go (the server turns them into notifications).
    public func setEventSink(_ handler: @escaping @Sendable (DomainEvent) -> Void) {
        let box = EventSink(handler)
        sink.withLock { $0 = box }
    }

    var now: UnixTime { clock.now }

    /// Runs `body` in one immediate transaction and publishes its effects after commit.
    /// A `DomainError` commits what was written before it (see `Store.write`) and still publishes.
    func transact<T>(_ body: (StoreTransaction, Effects) throws -> T) throws -> T {
        let effects = Effects()
        do {
            let value = try store.write { tx in
                effects.reset()
                return try body(tx, effects)
            }
            publish(effects)
            return value
        } catch let error as DomainError {
            publish(effects)
            throw error
        } catch is StoreBusy {
            // Nothing was committed: nothing is published; the caller may try again.
            throw DomainError.rateLimited(retryAfter: 1, "the store is busy")
        }
    }

    /// Runs `body` in a read transaction.
    func inspect<T>(_ body: (StoreTransaction) throws -> T) throws -> T {
        try store.read(body)
    }

    /// Publishes effects that need no transaction (a deep link opened).
    func publishOutside(_ effects: Effects) { publish(effects) }

    private func publish(_ effects: Effects) {
        let box = sink.withLock { $0 }
        for event in effects.events {
            if case .delivery(let message) = event { outbox.append(message) }
            box.handler(event)
        }
    }

    /// Records an audit event in the store and queues its notification.
    func audit(_ tx: StoreTransaction, _ effects: Effects, _ type: AuditEventType, userId: String? = nil,
               registrationId: String? = nil, deviceId: String? = nil, detail: String? = nil, at: UnixTime? = nil) throws {
        let event = AuditEvent(at: at ?? now, type: type, userId: userId, registrationId: registrationId, deviceId: deviceId, detail: detail)
        try tx.save(AuditRecord(id: random.identifier("evt"), event: event))
        effects.append(.audit(event))
    }
}

/// Where committed events go, as one reference that is swapped whole.
final class EventSink: Sendable {
    let handler: @Sendable (DomainEvent) -> Void
    init(_ handler: @escaping @Sendable (DomainEvent) -> Void) { self.handler = handler }
}
