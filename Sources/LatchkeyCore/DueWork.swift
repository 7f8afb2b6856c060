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
    /// Callback deliveries due before the move are attempted at the time they were due, and those due after it before this returns,
    /// so a transcript replays (the two waits a second at most together: a receiver that takes its time holds up no request).
    /// - Throws: `forbidden` on the system clock.
    public func advanceClock(by seconds: Int64) throws {
        let left = drainCallbackWorker()
        try clock.advance(by: seconds)
        try runDueTransitions()
        wakeCallbackWorker()
        drainCallbackWorker(within: left)
    }
}
