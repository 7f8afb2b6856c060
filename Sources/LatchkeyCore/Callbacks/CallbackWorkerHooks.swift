import LatchkeyContract
import Synchronization

/// How the domain reaches the process's delivery worker (the executable composes one; the domain knows no HTTP).
///
/// `wake` asks for a pass soon (after a commit that wrote callback events, a callback configured, a delivery retried by hand) and
/// returns at once; `drain` returns once every delivery due at the current time has been attempted and the worker is idle, or once
/// the milliseconds it is given have passed, and answers those left — only called under a manual clock, so a transcript with
/// receivers that answer at once replays, and within a second a request (a receiver that takes its time holds up none); under the
/// system clock nothing waits for a delivery.
///
/// `stop`, at exit: no attempt starts any more, and those under way get the milliseconds it is given to end and be recorded.
final class CallbackWorkerHooks: Sendable {
    let wake: @Sendable () -> Void
    let drain: @Sendable (Int) -> Int
    let stop: @Sendable (Int) -> Void

    init(wake: @escaping @Sendable () -> Void, drain: @escaping @Sendable (Int) -> Int, stop: @escaping @Sendable (Int) -> Void) {
        self.wake = wake
        self.drain = drain
        self.stop = stop
    }
}

extension Latchkey {
    /// Attaches the process's delivery worker: `wake` after each commit that wrote callback events (and a callback configured or a
    /// delivery retried), `drain` before answers that show deliveries or move a manual clock, `stop` at exit.
    public func setCallbackWorker(
        wake: @escaping @Sendable () -> Void, drain: @escaping @Sendable (_ milliseconds: Int) -> Int,
        stop: @escaping @Sendable (_ milliseconds: Int) -> Void
    ) {
        let hooks = CallbackWorkerHooks(wake: wake, drain: drain, stop: stop)
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
        guard !holdingCallbackWorker.load(ordering: .relaxed) else { return }
        callbackWorker.withLock { $0 }?.wake()
    }

    /// Starts the worker when a callback has come into the store since this process last looked (another process configured it):
    /// what an idle process does now and then, so it delivers, and takes over the attempts of a process that died, without a call.
    /// - Throws: `storeUnavailable`.
    public func lookForCallbacks() throws {
        guard !callbacksInSight.withLock({ $0 }), try hasCallbacks() else { return }
        wakeCallbackWorker()
    }

    /// Asks again, on the calls that follow, whether the store has a callback: the process could not tell when it attached its
    /// worker (the store was unreachable), and a worker left asleep would leave a dead process's deliveries waiting.
    public func askForCallbacksAgain() {
        callbacksUnknown.store(true, ordering: .relaxed)
    }

    /// Whether the process still asks whether the store has a callback (an idle process then looks again soon).
    public var isAskingForCallbacks: Bool { callbacksUnknown.load(ordering: .relaxed) }

    /// On a call (`runDueTransitions`): where the store could not tell before whether it has a callback, asks it (and wakes the
    /// worker for one); an answer ends the asking.
    func lookForCallbacksIfUnknown() {
        guard callbacksUnknown.load(ordering: .relaxed) else { return }
        do {
            try lookForCallbacks()
            callbacksUnknown.store(false, ordering: .relaxed)
        } catch {
            // Still unreachable: the next call (or the idle process's next look: `isAskingForCallbacks`) asks again.
            logger.debug("whether the store has a callback is still unknown", metadata: ["error": "\(String(describing: type(of: error)))"])
        }
    }

    /// At exit: attempts under way get `milliseconds` to end and be recorded (a receiver that answered is not sent the event again by
    /// another process once the lease runs out), and no other starts.
    public func stopCallbackDeliveries(within milliseconds: Int) {
        callbackWorker.withLock { $0 }?.stop(milliseconds)
    }

    /// How long one request waits at most for the deliveries due now, in all: long enough for receivers that answer at once (or a
    /// refused connection), short of one that takes its time (no request waits for a delivery).
    static let drainMilliseconds = 1000

    /// Under a manual clock: waits until every delivery due now was attempted (so what follows sees its outcome), `milliseconds` at
    /// most; answers the milliseconds left of them.
    @discardableResult
    func drainCallbackWorker(within milliseconds: Int = drainMilliseconds) -> Int {
        guard clock.isManual, let hooks = callbackWorker.withLock({ $0 }) else { return milliseconds }
        return hooks.drain(milliseconds)
    }
}
