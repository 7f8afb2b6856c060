import Crypto
import LatchkeyContract
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The server half — the authority — over one store, clock and random source.
///
/// Each flow family adds its operations in an extension, one file per concept. The simulated
/// devices are LatchkeySimulator's, over the same operations (`session`).
public final class Latchkey: Sendable {
    public let store: Store
    public let clock: Clock
    public let random: RandomSource
    /// Where the server's own keys and sealing nonces come from: a stream apart from `random`, so
    /// making a key moves no other value of a seeded run.
    let keyRandom: RandomSource
    /// How the server signs with its own keys (RFC 6979 in seeded runs).
    let signer: ECDSASigning
    public let sentMessages: SentMessages
    let logger: Logger
    /// The event handler, boxed: a closure kept directly in a `Mutex` is re-abstracted (wrapped
    /// in a new thunk) on every read, which grows without bound in a long-lived process.
    private let sink: Mutex<EventSink>
    /// Where a transaction's events are written before it commits (nil: nowhere), boxed as `sink`.
    private let journal = Mutex<EventJournal?>(nil)
    /// The store's keyed-hash and sealing key (kept outside the tables; see `Store.secretKey`), read or made at start.
    let storeKey: [UInt8]
    /// HMAC-SHA256 keyed by `storeKey` once, at start (`keyedMAC`).
    let keyedHash: KeyedSHA256
    /// The sealing keys of every kind, derived from `storeKey` once, at start (`Sealed.Keys`).
    let sealKeysByKind: [SealedKind: Sealed.Keys]
    let dueCache = DueCache()
    /// When the next pending operation expires, as last read.
    let operationDueCache = DueCache()
    /// When the next onboarding process waiting for its OTP reaches its 3 h end.
    let onboardingDueCache = DueCache()
    /// When rows past their use are next forgotten (nil: not yet looked; see `forgetExpiredRows`).
    let nextForgetting = Mutex<UnixTime?>(nil)
    /// How callback addresses are checked (see `callbackPolicy`).
    let callbackPolicyBox = Mutex(CallbackPolicy())
    /// Writes each callback event's `data` (the server layer knows its wire form).
    let callbackRenderer = Mutex<CallbackRenderer?>(nil)
    /// Where event ids come from: a stream apart from `random`, so writing an event moves no value of a seeded run.
    let eventRandom: RandomSource
    /// Whether this process has seen a callback in the store (from then on a write transaction reads whether there is one with its
    /// first reads: `writeCallbackEvents`).
    let callbacksInSight = Mutex(false)
    /// Callbacks whose secret this process could not unseal, and until when it leaves their deliveries (`claimCallbackDeliveries`).
    let callbacksUnreadable = Mutex<[String: UnixTime]>([:])
    /// Whether the store could not tell, when the process attached its worker, if it has a callback: the calls that follow ask
    /// again until it answers (`lookForCallbacksIfUnknown`).
    let callbacksUnknown = Atomic<Bool>(false)
    /// Set while `advanceClock` moves a manual clock stop by stop: the delivery worker is not woken on the way (it would attempt at
    /// whichever time it read), only once the clock stands at the end.
    let holdingCallbackWorker = Atomic<Bool>(false)
    /// The process's delivery worker, woken after a commit that wrote callback events (see `setCallbackWorker`).
    let callbackWorker = Mutex<CallbackWorkerHooks?>(nil)
    /// Called after a transaction run off the process's own thread published events (the callback worker's `callbackFailed`).
    let backgroundEvents = Mutex<(@Sendable () -> Void)?>(nil)
    /// The user `userTellingNothing` found last: what an identifier that names nobody reads instead (see `decoyUserId`).
    let lastUserFound = Mutex<String?>(nil)
    /// Opens the system over a store, with the store's keyed-hash key (`Store.secretKey`: an in-memory store's made here).
    /// - Throws: a store failure, `StoreKeyMismatch` (the store was first used with another key).
    public init(
        store: Store, clock: Clock, random: RandomSource, signer: ECDSASigning = RandomizedECDSA(), sentMessages: SentMessages = SentMessages(),
        logger: Logger = Logger(label: "latchkey.core")
    ) throws {
        self.signer = signer
        self.store = store
        self.clock = clock
        self.random = random
        keyRandom = random.derived("keys")
        eventRandom = random.derived("events")
        self.logger = logger
        self.sentMessages = sentMessages
        sink = Mutex(EventSink { _ in })
        storeKey = try store.secretKey { random.bytes(32) }
        keyedHash = KeyedSHA256(key: storeKey)
        let key = storeKey
        sealKeysByKind = Dictionary(uniqueKeysWithValues: SealedKind.allCases.map { ($0, Sealed.Keys($0, storeKey: key)) })
        try checkStoreKey()
    }

    /// Where committed events go (the server turns them into notifications).
    public func setEventSink(_ handler: @escaping @Sendable (DomainEvent) -> Void) {
        let box = EventSink(handler)
        sink.withLock { $0 = box }
    }

    /// What to call after another thread's transaction published events to the sink (the server wakes its idle loop).
    public func setBackgroundEventsHook(_ hook: @escaping @Sendable () -> Void) {
        backgroundEvents.withLock { $0 = hook }
    }

    /// Whether this process has seen a callback in the store (its worker may then publish events from its own thread).
    public var hasCallbacksInSight: Bool { callbacksInSight.withLock { $0 } }

    /// Where a write transaction's events are recorded inside that transaction, before it commits (a shared store's outbox, so other processes hear
    /// exactly what committed).
    ///
    /// The handler runs on every attempt of a body; a throw rolls the transaction back.
    public func setEventJournal(_ handler: @escaping @Sendable (StoreTransaction, [DomainEvent]) throws -> Void) {
        let box = EventJournal(handler)
        journal.withLock { $0 = box }
    }

    var now: UnixTime { clock.now }

    /// Runs `body` in one transaction and publishes its effects after commit.
    ///
    /// A `DomainError` is an answer, not a fault: what the body wrote before it is committed and published
    /// too.
    func transact<T>(_ body: (StoreTransaction, Effects) throws -> T) throws -> T {
        let effects = Effects()
        let journal = journal.withLock { $0 }
        var wroteCallbackEvents = false
        let outcome: Result<T, DomainError> = try storeCall {
            try store.write { tx in
                effects.reset()
                wroteCallbackEvents = false
                tx.willRead(callbackReads)
                let outcome: Result<T, DomainError>
                do {
                    outcome = .success(try body(tx, effects))
                } catch let answer as DomainError {
                    outcome = .failure(answer)
                }
                if !effects.events.isEmpty {
                    wroteCallbackEvents = try writeCallbackEvents(tx, effects.events)
                    if let journal { try journal.handler(tx, effects.events) }
                }
                return outcome
            }
        }
        publish(effects)
        if wroteCallbackEvents { wakeCallbackWorker() }
        return try outcome.get()
    }

    /// Runs `body` in a read transaction.
    func inspect<T>(_ body: (StoreTransaction) throws -> T) throws -> T {
        try storeCall { try store.read(body) }
    }

    /// A store that cannot be reached is an answer to the caller (`storeUnavailable`).
    private func storeCall<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let unavailable as StoreUnavailable {
            logger.warning("store unavailable", metadata: ["reason": "\(unavailable.reason)"])
            throw DomainError.storeUnavailable(retryAfter: unavailable.retryAfterSeconds, "try again shortly")
        }
    }

    /// Publishes effects that need no transaction of their own (a deep link opened); with a
    /// journal they are recorded in one, so other processes hear them too.
    func publishOutside(_ effects: Effects) {
        if let journal = journal.withLock({ $0 }), !effects.events.isEmpty {
            do {
                try store.write { tx in try journal.handler(tx, effects.events) }
            } catch {
                logger.warning("events not journaled", metadata: ["error": "\(String(describing: type(of: error)))"])
            }
        }
        publish(effects)
    }

    private func publish(_ effects: Effects) {
        let box = sink.withLock { $0 }
        for event in effects.events {
            switch event {
            case .delivery(let message): sentMessages.append(message)
            case .withheldDelivery(let message): sentMessages.withhold(message)
            default: break
            }
            box.handler(event)
        }
    }

    /// Records an audit event in the store and queues its notification.
    ///
    /// `userId` `nobody` (an event about an identifier that names no user, which would record its user
    /// if it named one) is stored as it is and tells no user.
    func audit(
        _ tx: StoreTransaction, _ effects: Effects, _ type: AuditEventType, userId: String? = nil,
        registrationId: String? = nil, deviceId: String? = nil, detail: String? = nil, at: UnixTime? = nil,
        activationName: String? = nil, installationId: String? = nil, check: String? = nil, operationId: String? = nil,
        dataMismatch: Bool? = nil, recordId: String? = nil
    ) throws {
        let event = AuditEvent(
            at: at ?? now, type: type, userId: userId == Self.nobody ? nil : userId, registrationId: registrationId, deviceId: deviceId,
            detail: detail,
            activationName: activationName, installationId: installationId, check: check, operationId: operationId,
            dataMismatch: dataMismatch)
        var record = AuditRecord(id: recordId ?? random.identifier("evt"), event: event)
        record.userId = userId
        try tx.save(record)
        effects.append(.audit(event))
    }
}

/// Where a transaction's events are recorded before it commits, as one reference swapped whole.
final class EventJournal: Sendable {
    let handler: @Sendable (StoreTransaction, [DomainEvent]) throws -> Void
    init(_ handler: @escaping @Sendable (StoreTransaction, [DomainEvent]) throws -> Void) { self.handler = handler }
}

/// Where committed events go, as one reference that is swapped whole.
final class EventSink: Sendable {
    let handler: @Sendable (DomainEvent) -> Void
    init(_ handler: @escaping @Sendable (DomainEvent) -> Void) { self.handler = handler }
}
