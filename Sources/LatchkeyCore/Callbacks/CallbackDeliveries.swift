import Crypto
import LatchkeyContract

/// Where a delivery stands.
public enum CallbackDeliveryStatus: String, Sendable, CaseIterable {
    case pending, delivered, failed
}

/// One event's delivery to one callback, as the operator sees it.
public struct CallbackDelivery: Sendable, Equatable {
    public var deliveryId: String
    public var eventId: String
    public var type: String
    public var status: CallbackDeliveryStatus
    public var attempts: Int
    public var lastAttemptAt: UnixTime?
    public var lastStatusCode: Int?
    public var lastError: String?
    public var nextAttemptAt: UnixTime?
}

/// A delivery a process holds to attempt: everything the request needs.
public struct ClaimedDelivery: Sendable {
    public var deliveryId: String
    /// The callback it goes to (a worker bounds the attempts under way to each).
    public var callbackId: String
    public var url: String
    /// The Standard Webhooks key (the secret's decoded bytes).
    public var key: [UInt8]
    /// `webhook-id`.
    public var eventId: String
    public var type: String
    public var seq: Int64
    /// When the change happened (the body's `timestamp`).
    public var createdAt: UnixTime
    /// The event's `data` (JSON).
    public var data: [UInt8]
    /// Until when this process holds it.
    public var leaseUntil: UnixTime
    /// A retry on the schedule: the millisecond its delay after the previous attempt began ends, which it begins no sooner than.
    ///
    /// It fell due at the whole second (`nextAttemptAt`); nil for a first attempt and a lease taken over, and for a retry by hand
    /// but one made in the very second the schedule's retry falls due (which then waits the rest of that second).
    public var notBeforeMilliseconds: Int64?

    public init(
        deliveryId: String, callbackId: String, url: String, key: [UInt8], eventId: String, type: String, seq: Int64, createdAt: UnixTime,
        data: [UInt8], leaseUntil: UnixTime, notBeforeMilliseconds: Int64? = nil
    ) {
        self.deliveryId = deliveryId
        self.callbackId = callbackId
        self.url = url
        self.key = key
        self.eventId = eventId
        self.type = type
        self.seq = seq
        self.createdAt = createdAt
        self.data = data
        self.leaseUntil = leaseUntil
        self.notBeforeMilliseconds = notBeforeMilliseconds
    }
}

/// Why an attempt got no answer (a delivery's `lastError`).
public enum CallbackAttemptError: String, Sendable, Error, CaseIterable {
    /// The host is, or resolves to, a link-local, private or unspecified address (without `--callback-allow-private`).
    case addressNotAllowed
    /// The host name does not resolve.
    case resolutionFailed
    case connectionRefused
    /// No whole answer within 10 s.
    case timeout
    /// The TLS handshake failed (the certificate, its host name, the version).
    case tlsFailure
    /// Any other failure to connect, send or read.
    case connectionFailed
    /// Nothing was sent: the process that claimed it could not unseal the callback's secret (a key file that is not the store's, a
    /// damaged row). That process leaves the callback's deliveries to others for `CallbackSchedule.unreadableSecretWait` seconds at a
    /// time (a new secret given to it ends its wait); they stay due, and count no attempt.
    case secretUnreadable
}

/// How one attempt ended.
public struct CallbackAttempt: Sendable {
    public var deliveryId: String
    public var leaseUntil: UnixTime
    /// When the attempt began, in milliseconds; `lastAttemptAt` reports its second, and the next attempt is due its delay after
    /// that second (`nextAttemptAt`) and begins no sooner than its delay after this millisecond.
    public var startedAtMilliseconds: Int64
    public var startedAt: UnixTime { startedAtMilliseconds / 1000 }
    /// The receiver's status, when it answered.
    public var statusCode: Int?
    /// Why there was no answer: `addressNotAllowed`, `resolutionFailed`, `connectionRefused`, `timeout`, `tlsFailure`,
    /// `connectionFailed`.
    public var error: String?

    /// A 2xx: the delivery is delivered.
    public var delivers: Bool { statusCode.map { (200...299).contains($0) } ?? false }
    /// A 410: the delivery is failed at once, on any attempt.
    public var failsAtOnce: Bool { statusCode == 410 }

    public init(deliveryId: String, leaseUntil: UnixTime, startedAtMilliseconds: Int64, statusCode: Int?, error: String?) {
        self.deliveryId = deliveryId
        self.leaseUntil = leaseUntil
        self.startedAtMilliseconds = startedAtMilliseconds
        self.statusCode = statusCode
        self.error = error
    }
}

extension CallbackDeliveryRecord {
    var deliveryStatus: CallbackDeliveryStatus { CallbackDeliveryStatus(rawValue: status) ?? .failed }

    /// A retry due on the schedule (not by hand, nor a lease taken over) begins no sooner than its delay after the previous attempt
    /// began, to the millisecond: the whole second it is due at may come up to a second sooner.
    var retryNotBeforeMilliseconds: Int64? {
        guard let began = lastAttemptStartedMilliseconds, let due = nextAttemptAt, attempts > 0 else { return nil }
        let delay = CallbackSchedule.delay(afterAttempts: attempts)
        return due == began / 1000 + delay ? began + delay * 1000 : nil
    }

    var delivery: CallbackDelivery {
        CallbackDelivery(
            deliveryId: id, eventId: eventId, type: type, status: deliveryStatus, attempts: attempts, lastAttemptAt: lastAttemptAt,
            lastStatusCode: lastStatusCode, lastError: lastError, nextAttemptAt: nextAttemptAt)
    }
}

/// The Standard Webhooks retry schedule (Svix's): each retry due its delay after the previous attempt began; after the eighth failure the
/// delivery is `failed`.
public enum CallbackSchedule {
    public static let retryDelays: [Int64] = [5, 300, 1800, 7200, 18_000, 36_000, 36_000]
    public static let maxAttempts = retryDelays.count + 1
    /// How long after the `attempts`-th attempt began the next is due (a retry by hand of a failed delivery: the last delay).
    static func delay(afterAttempts attempts: Int) -> Int64 { retryDelays[max(min(attempts, retryDelays.count), 1) - 1] }
    /// How long a process holds a delivery it attempts (an attempt takes 10 s at most): a process that died gives it up after this.
    public static let lease: Int64 = 30
    /// Events fanned out in one transaction.
    public static let fanOutBatch = 500
    /// Delivered and failed deliveries are pruned after this long.
    public static let kept: Int64 = 7 * 86_400
    /// How long a process that cannot unseal a callback's secret leaves its deliveries before it tries again.
    public static let unreadableSecretWait: Int64 = 60
}

extension Latchkey {
    /// How many batches of events a listing fans out at most (a backlog beyond them is listed as the workers get to it).
    static let listingFanOutBatches = 20

    /// A callback's deliveries, newest first (ties by commit order), optionally of one status.
    ///
    /// Every change committed before the call is listed, pending at least, but while `clock/advance` steps the clock or past a
    /// backlog of `listingFanOutBatches` batches: the events no worker has fanned out yet are fanned out here, as any process's
    /// worker may (each once). Under a manual clock, once every delivery due now was attempted.
    /// - Throws: `notFound` (`callback`).
    public func callbackDeliveries(callbackId: String, status: CallbackDeliveryStatus?, limit: Int) throws -> [CallbackDelivery] {
        drainCallbackWorker()
        // The listing, and whether events wait to be fanned out, in one read: a write transaction only where some do.
        func read() throws -> (deliveries: [CallbackDelivery], waiting: Bool) {
            try inspect { tx in
                guard try tx.fetch(CallbackRecord.self, id: callbackId) != nil else { throw DomainError.notFound("callback") }
                var filters: [StoreFilter] = [.equals(CallbackDeliveryRecord.Columns.callbackId, callbackId)]
                if let status { filters.append(.equals(CallbackDeliveryRecord.Columns.status, status.rawValue)) }
                let deliveries = try tx.fetchAll(CallbackDeliveryRecord.self, where: filters, newestFirst: true, limit: limit)
                return (deliveries.map(\.delivery), try !tx.fetchAll(CallbackEventRecord.waiting(limit: 1)).isEmpty)
            }
        }
        let listing = try read()
        guard listing.waiting else { return listing.deliveries }
        try fanOutWaitingCallbackEvents(batches: Self.listingFanOutBatches)
        return try read().deliveries
    }

    /// Gives a delivery one more attempt now (`attempts` keeps counting; failing, a failed one is `failed` again).
    /// - Throws: `notFound` (`callbackDelivery`; `callback` where the delivery's callback was removed: nothing could attempt it),
    ///   `invalidParams` (a delivered one).
    public func retryCallbackDelivery(deliveryId: String) throws -> CallbackDelivery {
        let delivery = try transact { tx, _ in
            let delivery = StoreKey.value(deliveryId)
            tx.willRead([
                .row(CallbackDeliveryRecord.self, id: delivery),
                .row(CallbackRecord.self, id: .column(CallbackDeliveryRecord.Columns.callbackId, of: CallbackDeliveryRecord.self, delivery)),
            ])
            guard var record = try tx.fetch(CallbackDeliveryRecord.self, id: deliveryId) else { throw DomainError.notFound("callbackDelivery") }
            guard try tx.fetch(CallbackRecord.self, id: record.callbackId) != nil else { throw DomainError.notFound("callback") }
            guard record.deliveryStatus != .delivered else { throw DomainError.invalid(.callbackDelivery, "was delivered already") }
            record.status = CallbackDeliveryStatus.pending.rawValue
            record.nextAttemptAt = now
            // An attempt under way keeps its lease: the delivery is claimed again only once that attempt is recorded or its
            // process is gone (the lease runs out); one process at a time.
            try tx.save(record)
            return record.delivery
        }
        wakeCallbackWorker()
        return delivery
    }

    /// Fans out the events waiting, a batch at a time, until a batch is not full (none waits that was there) or after `batches`.
    public func fanOutWaitingCallbackEvents(batches: Int = .max) throws {
        var made = 0
        while made < batches, try fanOutCallbackEvents() == CallbackSchedule.fanOutBatch { made += 1 }
    }

    /// Makes the deliveries of events not yet fanned out, to every callback that asks for them and was configured before them: a
    /// worker's pass, or a listing's (`callbackDeliveries`).
    /// - Returns: how many events were fanned out.
    public func fanOutCallbackEvents(limit: Int = CallbackSchedule.fanOutBatch) throws -> Int {
        // While `advanceClock` steps a manual clock, a worker's pass already under way, or a listing, fans out nothing (see
        // `claimCallbackDeliveries`).
        guard !holdingCallbackWorker.load(ordering: .relaxed) else { return 0 }
        return try transact { tx, _ in
            let waiting = CallbackEventRecord.waiting(limit: limit)
            tx.willRead([.rows(waiting), .rows(CallbackRecord.all)])
            let events = try tx.fetchAll(waiting)
            guard !events.isEmpty else { return 0 }
            let callbacks = try tx.fetchAll(CallbackRecord.all)
            for var event in events {
                for callback in callbacks
                where callback.afterSeq < event.seq && callback.eventTypes.map(\.rawValue).contains(event.type)
                    && (event.applicationId == nil || event.applicationId.isSameId(as: callback.applicationId))
                {
                    try tx.save(
                        CallbackDeliveryRecord(
                            id: Self.deliveryId(eventId: event.id, callbackId: callback.id), callbackId: callback.id, eventId: event.id,
                            eventSeq: event.seq, type: event.type,
                            status: CallbackDeliveryStatus.pending.rawValue, attempts: 0, lastAttemptAt: nil, lastStatusCode: nil,
                            lastError: nil, nextAttemptAt: now, leaseUntil: nil, createdAt: now, lastAttemptStartedMilliseconds: nil))
                }
                event.fannedOut = true
                try tx.save(event)
            }
            return events.count
        }
    }

    /// Records how attempts ended.
    ///
    /// 2xx delivers; 410 fails at once; anything else is tried again on the schedule, and after the eighth failure the delivery is `failed`
    /// (audited `callbackFailed`). A retry by hand of a failed delivery is one more attempt: failing, it is
    /// `failed` again. An attempt whose lease another process took over records nothing.
    public func recordCallbackAttempts(_ attempts: [CallbackAttempt]) throws {
        guard !attempts.isEmpty else { return }
        var audited = false
        try transact { tx, effects in
            audited = false
            tx.willRead(attempts.map { .row(CallbackDeliveryRecord.self, id: $0.deliveryId) })
            for attempt in attempts {
                guard var delivery = try tx.fetch(CallbackDeliveryRecord.self, id: attempt.deliveryId),
                    delivery.deliveryStatus == .pending, delivery.leaseUntil == attempt.leaseUntil
                else { continue }
                // A 410 failed the delivery at once: only a retry by hand attempts it again, and that retry is its one more attempt.
                let retriedByHandAfter410 = delivery.lastStatusCode == 410
                delivery.attempts += 1
                delivery.lastAttemptAt = attempt.startedAt
                delivery.lastAttemptStartedMilliseconds = attempt.startedAtMilliseconds
                delivery.lastStatusCode = attempt.statusCode
                delivery.lastError = attempt.statusCode == nil ? attempt.error : nil
                delivery.leaseUntil = nil
                if attempt.delivers {
                    delivery.status = CallbackDeliveryStatus.delivered.rawValue
                    delivery.nextAttemptAt = nil
                } else if attempt.failsAtOnce || delivery.attempts >= CallbackSchedule.maxAttempts || retriedByHandAfter410 {
                    delivery.status = CallbackDeliveryStatus.failed.rawValue
                    delivery.nextAttemptAt = nil
                    // Its id from the delivery and the attempt, not the seeded stream: the worker's thread must move no value of a
                    // seeded run.
                    try audit(
                        tx, effects, .callbackFailed, detail: delivery.id,
                        recordId: Self.derivedIdentifier("evt", "\(delivery.id)\n\(delivery.attempts)"))
                    audited = true
                } else {
                    delivery.nextAttemptAt = attempt.startedAt + CallbackSchedule.delay(afterAttempts: delivery.attempts)
                }
                try tx.save(delivery)
            }
        }
        // Run on the worker's thread: a `callbackFailed` it audited wakes the idle process, which tells its subscribers now (not
        // with the answer to some later, unrelated call).
        if audited { backgroundEvents.withLock { $0 }?() }
    }

    /// A delivery's id, from its event and callback: fanning out (on the worker's thread) draws nothing from a seeded stream.
    static func deliveryId(eventId: String, callbackId: String) -> String { derivedIdentifier("dlv", "\(eventId)\n\(callbackId)") }

    /// An identifier named by what it is about: a prefix and 16 lowercase base32 characters (80 bits) of SHA-256 of `name`.
    static func derivedIdentifier(_ prefix: String, _ name: String) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
        let digest = SHA256.hash(data: Array(name.utf8)).byteArray
        var value = digest.prefix(10).reduce(UInt128(0)) { $0 << 8 | UInt128($1) }
        var out: [Character] = []
        for _ in 0..<16 {
            out.append(alphabet[Int(value & 31)])
            value >>= 5
        }
        return prefix + "_" + String(out)
    }

    /// When the next delivery is due (nil: none pending), for the worker's sleep.
    public func nextCallbackDeliveryDue() throws -> UnixTime? {
        // A callback whose secret this process cannot unseal is due to it when it tries again, not before.
        let waiting = callbacksUnreadable.withLock { $0 }
        return try inspect { tx in
            try tx.fetchAll(
                CallbackDeliveryRecord.self, where: [.equals(CallbackDeliveryRecord.Columns.status, CallbackDeliveryStatus.pending.rawValue)],
                newestFirst: false, limit: 1000
            ).map { max($0.nextAttemptAt ?? now, waiting[$0.callbackId] ?? 0) }.min()
        }
    }

    /// How many old events one pass of a prune looks at.
    static let prunedEventsPerPass = 500

    /// Prunes deliveries delivered or failed more than 7 days ago, and events older than that with no pending delivery, together
    /// with their deliveries: a delivery goes with its event (one retried by hand late in its life too, so a later retry answers
    /// `notFound` rather than being dropped for want of its event), and only pending ones hold an event back.
    ///
    /// One pass: the first (`cursor` nil) prunes the deliveries, and each looks at `prunedEventsPerPass` old events, those numbered
    /// after `cursor`. Returns where the next pass goes on when this one's were as many (more may follow), else nil: a store that
    /// makes more events than a pass prunes is pruned in as many passes, and events held back by a pending delivery hold no
    /// later ones back.
    @discardableResult
    public func pruneCallbacks(after cursor: Int64? = nil) throws -> Int64? {
        try transact { tx, _ in
            let cutoff = now - CallbackSchedule.kept
            if cursor == nil {
                for status in [CallbackDeliveryStatus.delivered, .failed] {
                    try tx.deleteAll(
                        CallbackDeliveryRecord.self,
                        where: [
                            .equals(CallbackDeliveryRecord.Columns.status, status.rawValue),
                            StoreFilter(CallbackDeliveryRecord.Columns.lastAttemptAt, .less, .int(cutoff)),
                        ])
                }
            }
            let oldQuery = StoreQuery<CallbackEventRecord>(
                where: [
                    .equals(CallbackEventRecord.Columns.fannedOut, true), StoreFilter(CallbackEventRecord.Columns.createdAt, .less, .int(cutoff)),
                ] + (cursor.map { [StoreFilter(CallbackEventRecord.Columns.seq, .greaterOrEqual, .int($0 + 1))] } ?? []),
                limit: Self.prunedEventsPerPass)
            // The old events and whether each has a pending delivery, read with the deletions above (they go first).
            tx.willRead([.rows(oldQuery), .rows(CallbackDeliveryRecord.pendingOfEvent, .ids(of: oldQuery))])
            // Everything read before the first delete: a delete of deliveries by event would make a store forget the answers it
            // read ahead for the other events (a round trip each on PostgreSQL).
            let old = try tx.fetchAll(oldQuery)
            let gone = try old.filter { try tx.fetchAll(CallbackDeliveryRecord.pendingOfEvent, $0.id).isEmpty }
            for event in gone {
                try tx.deleteAll(CallbackDeliveryRecord.self, where: [.equals(CallbackDeliveryRecord.Columns.eventId, event.id)])
                try tx.delete(CallbackEventRecord.self, id: event.id)
            }
            return old.count == Self.prunedEventsPerPass ? old.map(\.seq).max() : nil
        }
    }
}
