import LatchkeyContract

/// How the domain reaches the process's delivery worker (the executable composes one; the domain knows no HTTP).
///
/// `wake` asks for a pass soon (after a commit that wrote callback events, a callback configured, a delivery retried by hand) and
/// returns at once; `drain` returns once every delivery due at the current time has been attempted and the worker is idle, or after
/// a second at most (a receiver that takes its time holds up no request) — only called under a manual clock, so a transcript with
/// receivers that answer at once replays; under the system clock nothing waits for a delivery.
final class CallbackWorkerHooks: Sendable {
    let wake: @Sendable () -> Void
    let drain: @Sendable () -> Void

    init(wake: @escaping @Sendable () -> Void, drain: @escaping @Sendable () -> Void) {
        self.wake = wake
        self.drain = drain
    }
}

extension Latchkey {
    /// Attaches the process's delivery worker: `wake` after each commit that wrote callback events (and a callback configured or a
    /// delivery retried), `drain` before answers that show deliveries or move a manual clock.
    public func setCallbackWorker(wake: @escaping @Sendable () -> Void, drain: @escaping @Sendable () -> Void) {
        let hooks = CallbackWorkerHooks(wake: wake, drain: drain)
        callbackWorker.withLock { $0 = hooks }
    }

    /// Whether the store has a callback (a process that finds one when it opens starts its worker).
    /// - Throws: `storeUnavailable`.
    public func hasCallbacks() throws -> Bool {
        let found = try inspect { tx in try tx.first(CallbackRecord.self, where: []) != nil }
        if found { callbacksInSight.withLock { $0 = true } }
        return found
    }

    func wakeCallbackWorker() {
        callbackWorker.withLock { $0 }?.wake()
    }

    /// Under a manual clock: waits until every delivery due now was attempted (so what follows sees its outcome), a second at most.
    func drainCallbackWorker() {
        guard clock.isManual, let hooks = callbackWorker.withLock({ $0 }) else { return }
        hooks.drain()
    }
}
