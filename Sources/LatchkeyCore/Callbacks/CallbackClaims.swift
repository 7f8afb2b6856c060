import LatchkeyContract
import LatchkeyStorage
import Synchronization

extension Latchkey {
    /// Takes up to `limit` deliveries that are due and held by no live process, at most `perCallback` to one callback counting the
    /// attempts of it `underWay` in this process; those of callbacks with none under way only when `idleToo`; none of those this
    /// process is `attempting` (by callback; their attempts not yet recorded), whatever their lease says.
    ///
    /// This process holds each for `CallbackSchedule.lease` seconds, and each is due again when that ends: a process killed mid-attempt
    /// gives it up then, to whichever process claims next.
    /// - Returns: the deliveries claimed, and whether more may be due to callbacks with none under way (with `idleToo`, their read
    ///   came back full).
    public func claimCallbackDeliveries(
        limit: Int, perCallback: Int = .max, underWay: [String: Int] = [:], idleToo: Bool = true, attempting: [String: Set<String>] = [:]
    ) throws
        -> (deliveries: [ClaimedDelivery], more: Bool)
    {
        // While `advanceClock` steps a manual clock, a pass of the worker already awake (not woken: it is held) claims nothing: it
        // would attempt at whichever time it read, and see its leases run out on the next jump. It is woken at the end.
        guard !holdingCallbackWorker.load(ordering: .relaxed) else { return ([], false) }
        let now = self.now
        let skipped = callbacksUnreadable.withLock { unreadable in
            unreadable = unreadable.filter { $0.value > now }
            return Set(unreadable.keys)
        }
        let queries = Self.dueQueries(
            limit: limit, perCallback: perCallback, underWay: underWay, idleToo: idleToo, now: now, skipping: skipped, attempting: attempting)
        guard let first = queries.first else { return ([], false) }
        let outcome: (claimed: [ClaimedDelivery], more: Bool, unreadable: Set<String>) = try transact { tx, _ in
            // The due deliveries, and their callbacks and events, in one round trip.
            let dueIds = queries.dropFirst().reduce(StoreKey.ids(of: first)) { .either($0, .ids(of: $1)) }
            tx.willRead(
                queries.map { .rows($0) } + [
                    .row(CallbackRecord.self, id: .column(CallbackDeliveryRecord.Columns.callbackId, of: CallbackDeliveryRecord.self, dueIds)),
                    .row(CallbackEventRecord.self, id: .column(CallbackDeliveryRecord.Columns.eventId, of: CallbackDeliveryRecord.self, dueIds)),
                ])
            let leaseUntil = now + CallbackSchedule.lease
            var callbacks: [String: (CallbackRecord, [UInt8])] = [:]
            // Callbacks whose secret this process cannot unseal: theirs are left (deliveries are independent), the others go on.
            var unreadable: Set<String> = []
            var claimed: [ClaimedDelivery] = []
            // Every read before the first write: a write to the table forgets what was read of it.
            let due = try queries.map { try tx.fetchAll($0) }
            // More may be due to callbacks with none under way (those under way are claimed for as their attempts end).
            let more = idleToo && due.last?.count == queries.last?.limit
            for rows in due {
                // Each read asks for no more than its callbacks have room for (`dueQueries`). A retry by hand makes a delivery due
                // while its attempt is under way: it is claimed once the lease is given up.
                for var delivery in rows where claimed.count < limit && (delivery.leaseUntil ?? 0) <= now {
                    var found = callbacks[delivery.callbackId]
                    if found == nil, !unreadable.contains(delivery.callbackId),
                        let callback = try tx.fetch(CallbackRecord.self, id: delivery.callbackId)
                    {
                        if let key = try? unseal(callback.sealedSecret, .callbackSecret, rowId: callback.id) {
                            found = (callback, key)
                            callbacks[callback.id] = found
                        } else {
                            unreadable.insert(callback.id)
                            logger.error(
                                "a callback's secret cannot be unsealed (a key file not the store's, a damaged row): its deliveries wait",
                                metadata: ["callback": "\(callback.id)"])
                        }
                    }
                    if unreadable.contains(delivery.callbackId) {
                        // Said where an operator looks; the delivery stays due, its schedule and attempts as they were.
                        delivery.lastError = CallbackAttemptError.secretUnreadable.rawValue
                        delivery.lastStatusCode = nil
                        try tx.save(delivery)
                        continue
                    }
                    guard let (callback, key) = found, let event = try tx.fetch(CallbackEventRecord.self, id: delivery.eventId) else {
                        try tx.delete(CallbackDeliveryRecord.self, id: delivery.id)
                        continue
                    }
                    let notBefore = delivery.retryNotBeforeMilliseconds
                    delivery.leaseUntil = leaseUntil
                    delivery.nextAttemptAt = leaseUntil
                    try tx.save(delivery)
                    claimed.append(
                        ClaimedDelivery(
                            deliveryId: delivery.id, callbackId: callback.id, url: callback.url, key: key, eventId: event.id, type: event.type,
                            seq: event.seq, createdAt: event.createdAt, data: event.data, leaseUntil: leaseUntil, notBeforeMilliseconds: notBefore))
                }
            }
            return (claimed, more, unreadable)
        }
        // Once committed: the deliveries say why they wait.
        if !outcome.unreadable.isEmpty {
            let until = now + CallbackSchedule.unreadableSecretWait
            callbacksUnreadable.withLock { for id in outcome.unreadable { $0[id] = until } }
        }
        return (outcome.claimed, outcome.more)
    }

    /// What a claim reads.
    ///
    /// For each callback with attempts under way, as many of its due deliveries as it has room for (through the index on callback
    /// and status); with `idleToo`, due deliveries of the other callbacks (but those `skipped`: secrets this process cannot unseal), no
    /// more than one callback may take.
    /// Nothing is read that could not be claimed (but a delivery retried by hand while leased): a worker whose one receiver is slow
    /// claims a few at a time, as attempts end; the deliveries this process is `attempting` are left out by id, as their lease may
    /// have run out (a manual clock moved past it) while their outcome is not recorded yet.
    static func dueQueries(
        limit: Int, perCallback: Int, underWay: [String: Int], idleToo: Bool, now: UnixTime, skipping skipped: Set<String> = [],
        attempting: [String: Set<String>] = [:]
    )
        -> [StoreQuery<CallbackDeliveryRecord>]
    {
        let due: [StoreFilter] = [
            .equals(CallbackDeliveryRecord.Columns.status, CallbackDeliveryStatus.pending.rawValue),
            StoreFilter(CallbackDeliveryRecord.Columns.nextAttemptAt, .lessOrEqual, .int(now)),
        ]
        guard limit > 0 else { return [] }
        var queries: [StoreQuery<CallbackDeliveryRecord>] = []
        for (callbackId, attempts) in underWay.sorted(by: { $0.key < $1.key }) where attempts < perCallback {
            let own = (attempting[callbackId] ?? []).sorted().map { StoreFilter(CallbackDeliveryRecord.Columns.id, .notEqual, .text($0)) }
            queries.append(
                StoreQuery(
                    where: [.equals(CallbackDeliveryRecord.Columns.callbackId, callbackId)] + due + own, limit: min(perCallback - attempts, limit)))
        }
        if idleToo {
            let others = (Set(underWay.keys).union(skipped)).sorted().map {
                StoreFilter(CallbackDeliveryRecord.Columns.callbackId, .notEqual, .text($0))
            }
            queries.append(StoreQuery(where: due + others, limit: min(perCallback, limit)))
        }
        return queries
    }
}
