import LatchkeyContract

extension Latchkey {
    /// When the next time-driven state change is due (nil: none).
    /// - Throws: `storeUnavailable` when the store cannot tell (the caller looks again shortly).
    public func nextDueTime() throws -> UnixTime? {
        [try accountRecoveryNextDue(), try operationsNextDue(), try onboardingNextDue()].compactMap { $0 }.min()
    }

    /// Forgets the cached due times, so the next look reads them from the store (another process may have added some).
    public func forgetDueTimes() {
        for cache in [dueCache, operationDueCache, onboardingDueCache] { cache.invalidate() }
    }

    /// Carries out every time-driven state change that is due; their events are published.
    public func runDueTransitions() throws {
        try runDueAccountRecoveryTransitions()
        try runDueOperationExpiries()
        try runDueOnboardingExpiries()
        forgetExpiredRows()
        lookForCallbacksIfUnknown()
    }
}

extension Latchkey {
    /// Moves a manual clock forward and carries out what became due.
    ///
    /// The clock stops at each change's own time on the way, so changes of every kind happen in time order, each at its time (its
    /// audit entry, notification and callback `timestamp` say when it happened, and `seq` follows that order). Callback deliveries
    /// due before the move are attempted at the time they were due; those made or due on the way are attempted once the clock
    /// stands at the end, before this returns, so a transcript replays (the two waits take a second at most together: a receiver
    /// that takes its time holds up no request).
    /// - Throws: `forbidden` on the system clock.
    public func advanceClock(by seconds: Int64) throws {
        guard clock.isManual else { return try clock.advance(by: seconds) }
        let left = drainCallbackWorker()
        let target = clock.now + seconds
        // The worker is not woken on the way: woken by a stop's commit, it would read the clock while it moves on (an attempt at
        // the stop's time or a later one, whichever thread won), and an attempt under way would see its lease run out on the jump.
        holdingCallbackWorker.store(true, ordering: .relaxed)
        let stepped = Result { try stepClock(to: target) }
        holdingCallbackWorker.store(false, ordering: .relaxed)
        wakeCallbackWorker()
        try stepped.get()
        drainCallbackWorker(within: left)
    }

    /// Moves the clock to `target`, stopping at each due change's time on the way to carry out what is due then.
    private func stepClock(to target: UnixTime) throws {
        var ranAt: UnixTime?
        // Each run forgets the due time of its own kind; the others' stand.
        forgetDueTimes()
        while let due = try nextDueTime(), due < target {
            let at = max(due, clock.now)
            // Run once at each time: what is still due after that run waits for the target (a look that could not settle it).
            guard at != ranAt else { break }
            try clock.advance(by: at - clock.now)
            try runDueTransitions()
            ranAt = at
        }
        try clock.advance(by: target - clock.now)
        try runDueTransitions()
    }
}
