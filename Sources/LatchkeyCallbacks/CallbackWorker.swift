import Dispatch
import LatchkeyContract
import LatchkeyCore
import Logging
import Synchronization

/// Delivers callback events off the request path, on a thread of its own: fans events out, claims due deliveries (the domain's
/// 30 s lease keeps each to one process at a time), sends them concurrently, records each outcome as it comes, prunes now and then,
/// and sleeps until the next due time, a wake-up or a second has passed (other processes' events).
///
/// Nothing is made until the first `wake` (a callback in the store, configured, or an event written): no thread, no event loop, and
/// no HTTP client until the first attempt. Attempts under way are bounded in all and per callback, so one slow receiver delays no
/// other.
public final class CallbackWorker: Sendable {
    /// Attempts under way at once, in all and to one callback.
    static let inFlight = 64
    static let inFlightPerCallback = 16
    /// How long the worker sleeps at most (another process may have written events).
    static let pollMilliseconds = 1000
    /// Outcomes recorded in one transaction, at most; while attempts are under way the worker looks for those that ended this often.
    static let recordBatch = 16
    static let coalesceMilliseconds = 5
    /// After a pass the store refused, how long before the next.
    static let retryMilliseconds = 1000
    /// Between two prunes, on the process's clock.
    static let pruneEverySeconds: Int64 = 3600

    private let core: Latchkey
    private let trust: CallbackTrust
    private let version: String
    private let logger: Logger
    private let state = Mutex(State())
    private let signal = DispatchSemaphore(value: 0)
    /// Made on the first attempt.
    private let transport = Mutex<CallbackTransport?>(nil)

    private struct State {
        var started = false
        /// Bumped by every wake-up and drain: a pass that begins after a request has seen what the request was about.
        var requests = 0
        /// `requests` when the worker last looked.
        var seenRequests = 0
        /// Drains waiting for an idle pass that began at or after their request.
        var drains: [(request: Int, done: DispatchSemaphore)] = []
        /// Attempts under way, per callback; 0 for one whose last attempt ended and that no claim has looked at since.
        var sending: [String: Int] = [:]
        var sendingTotal = 0
        /// Attempts ended and not yet recorded.
        var ended: [CallbackAttempt] = []
        /// The deliveries (and their callbacks) of the attempts started and not yet recorded: never claimed again by this process,
        /// even where their lease ran out (a manual clock moved past it, an attempt that outlived it); another process takes one over
        /// once this one is gone.
        var attempting: [String: String] = [:]
        /// At exit: no attempt starts any more.
        var stopping = false
    }

    public init(core: Latchkey, trust: CallbackTrust, version: String, logger: Logger) {
        self.core = core
        self.trust = trust
        self.version = version
        self.logger = logger
    }

    /// Asks for a pass soon, starting the worker on first use; returns at once.
    public func wake() {
        let start = state.withLock { state -> Bool in
            state.requests += 1
            defer { state.started = true }
            return !state.started
        }
        if start { DispatchQueue(label: "latchkey.callbacks").async { [self] in run() } }
        signal.signal()
    }

    /// Returns once every delivery due now was attempted and recorded (a worker never started has none), or once `milliseconds`
    /// have passed, whichever comes first; answers the milliseconds left.
    public func drain(within milliseconds: Int) -> Int {
        let done = DispatchSemaphore(value: 0)
        let waiting = state.withLock { state -> Bool in
            guard state.started, milliseconds > 0 else { return false }
            state.requests += 1
            state.drains.append((state.requests, done))
            return true
        }
        guard waiting else { return milliseconds }
        signal.signal()
        let start = DispatchTime.now()
        // Timed out, the entry stays listed until a pass releases it: a signal nobody waits for.
        _ = done.wait(timeout: start + .milliseconds(milliseconds))
        let waited = Int((DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1_000_000)
        return max(milliseconds - waited, 0)
    }

    /// At exit: starts no attempt any more and returns once those under way have ended and been recorded, or once `milliseconds`
    /// have passed (an attempt still under way then is another process's once its lease runs out).
    public func stop(within milliseconds: Int) {
        state.withLock { $0.stopping = true }
        _ = drain(within: milliseconds)
    }

    private func run() {
        BackgroundPriority.lowerThisThread()
        var lastPrune: UnixTime?
        /// A prune under way: where its next pass goes on.
        var pruning: Int64?
        var lastLook: Int64?
        var more = false
        var idleWaitEnded = false
        while true {
            let (request, woken) = state.withLock { state -> (Int, Bool) in
                defer { state.seenRequests = state.requests }
                return (state.requests, state.requests != state.seenRequests)
            }
            // Look for new events and what fell due after a wake-up, and at least once a second (other processes' events, retries
            // and leases falling due); otherwise record what ended, claim for the callbacks whose attempts ended, and claim what a full
            // claim may have left.
            let now = core.clock.nowMilliseconds
            let looking = woken || idleWaitEnded || lastLook.map { now - $0 >= Int64(Self.pollMilliseconds) } ?? true
            if looking { lastLook = now }
            var idle = false
            var pause: Int
            // Every hour, busy or idle: a receiver that never answers keeps attempts under way for good, and must hold up no other
            // callback's pruning. A pass at a time, the next at once while old events remain. A prune that fails holds up no
            // delivery: it is tried again at the next hour.
            if pruning != nil || lastPrune.map({ core.clock.now - $0 >= Self.pruneEverySeconds }) ?? true {
                if pruning == nil { lastPrune = core.clock.now }
                do {
                    pruning = try core.pruneCallbacks(after: pruning)
                } catch {
                    pruning = nil
                    logger.warning("callback pruning failed; tried again in an hour", metadata: ["error": "\(String(describing: type(of: error)))"])
                }
            }
            do {
                let pass = try self.pass(looking: looking, more: more)
                more = pass.more
                switch pass.next {
                case .progress:
                    pause = 0
                case .waiting:
                    pause = Self.coalesceMilliseconds
                case .idle:
                    pause = pruning == nil ? try untilDue() : 0
                    idle = true
                    releaseDrains(upTo: request)
                }
            } catch {
                // The store is away (a failover, a restart): what ended stays queued and is recorded when it is back.
                logger.warning("callback deliveries paused", metadata: ["error": "\(String(describing: type(of: error)))"])
                pause = Self.retryMilliseconds
                more = true
                releaseDrains(upTo: request)
            }
            // An idle wait that ran out: something fell due, or it is time to look for other processes' events.
            idleWaitEnded = pause > 0 && signal.wait(timeout: .now() + .milliseconds(pause)) == .timedOut && idle
        }
    }

    private enum Next {
        /// Something was recorded or started: look again at once.
        case progress
        /// Attempts are under way and nothing more could start: wait for some to end.
        case waiting
        /// Nothing due, under way or left to record.
        case idle
    }

    /// Records what ended, fans out (when `looking`), claims when something may be due, and starts what it claimed.
    ///
    /// `more`: the last claim of callbacks with nothing under way came back full, and is the next pass's.
    private func pass(looking: Bool, more: Bool) throws -> (next: Next, more: Bool) {
        let ended = state.withLock { state -> [CallbackAttempt] in
            defer { state.ended.removeAll() }
            return state.ended
        }
        if !ended.isEmpty {
            do {
                try core.recordCallbackAttempts(ended)
                state.withLock { state in for attempt in ended { state.attempting[attempt.deliveryId] = nil } }
            } catch {
                state.withLock { $0.ended = ended + $0.ended }
                throw error
            }
        }
        if looking, !state.withLock({ $0.stopping }) { try core.fanOutWaitingCallbackEvents() }
        // Callbacks under way (or whose last attempt just ended, kept at 0) are claimed for as their attempts end, each as much as it
        // has room for; the others when something may have fallen due for them.
        let (free, underWay, attempting) = state.withLock { state in
            (
                state.stopping ? 0 : Self.inFlight - state.sendingTotal, state.sending,
                state.attempting.reduce(into: [String: Set<String>]()) { $0[$1.value, default: []].insert($1.key) }
            )
        }
        var claimed: [ClaimedDelivery] = []
        var left = more
        let idleToo = looking || more
        if free > 0, idleToo || !ended.isEmpty {
            let claim = try core.claimCallbackDeliveries(
                limit: free, perCallback: Self.inFlightPerCallback, underWay: underWay, idleToo: idleToo, attempting: attempting)
            claimed = claim.deliveries
            left = claim.more  // false without idleToo, as `more` then is
            // Only this thread starts attempts: a callback at 0 then is at 0 now, and has been claimed for.
            state.withLock { state in
                for (callbackId, attempts) in underWay where attempts == 0 && state.sending[callbackId] == 0 { state.sending[callbackId] = nil }
            }
        }
        for delivery in claimed { start(delivery) }
        if !ended.isEmpty || !claimed.isEmpty { return (.progress, left) }
        return (state.withLock { $0.sendingTotal == 0 && $0.ended.isEmpty } ? .idle : .waiting, left)
    }

    /// One attempt, sent off this thread; its outcome is queued for the next pass.
    ///
    /// A retry is due in whole seconds (`nextAttemptAt`, its delay after `lastAttemptAt`, the second the previous attempt began); one
    /// on the schedule also waits out the fraction of a second (`notBeforeMilliseconds`), so that it begins no sooner than its delay
    /// after the previous attempt, whichever process made that one.
    private func start(_ delivery: ClaimedDelivery) {
        state.withLock { state in
            state.sending[delivery.callbackId, default: 0] += 1
            state.sendingTotal += 1
            state.attempting[delivery.deliveryId] = delivery.callbackId
        }
        let wait = delivery.notBeforeMilliseconds.map { $0 - core.clock.nowMilliseconds } ?? 0
        guard wait > 0 else { return send(delivery) }
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(min(wait, 1000)))) { [self] in
            // Stopped meanwhile: no attempt starts any more. This one is not made, and its lease passes it to another process (or
            // this one restarted).
            let given = state.withLock { state -> Bool in
                guard state.stopping else { return false }
                endSending(delivery, in: &state)
                state.attempting[delivery.deliveryId] = nil
                return true
            }
            if given { signal.signal() } else { send(delivery) }
        }
    }

    private func send(_ delivery: ClaimedDelivery) {
        let started = core.clock.nowMilliseconds
        let request = CallbackRequest(delivery, at: started / 1000, version: version)
        let transport = transport.withLock { made in
            if let made { return made }
            let policy = core
            let transport = CallbackTransport(trust: trust) { policy.callbackPolicy }
            made = transport
            return transport
        }
        transport.send(request, to: delivery.url) { [self] outcome, cause in
            logger.debug(
                "callback attempt",
                metadata: [
                    "delivery": "\(delivery.deliveryId)", "event": "\(delivery.eventId)",
                    "outcome": "\(outcome)", "cause": "\(cause ?? "-")",
                ])
            let attempt: CallbackAttempt
            switch outcome {
            case .status(let code):
                attempt = CallbackAttempt(
                    deliveryId: delivery.deliveryId, leaseUntil: delivery.leaseUntil, startedAtMilliseconds: started, statusCode: code, error: nil)
            case .failed(let error):
                attempt = CallbackAttempt(
                    deliveryId: delivery.deliveryId, leaseUntil: delivery.leaseUntil, startedAtMilliseconds: started, statusCode: nil,
                    error: error.rawValue)
            }
            // Outcomes are recorded in batches: the worker is told at once when a batch is full or nothing else is under way, and
            // otherwise finds them within `coalesceMilliseconds`.
            let tell = state.withLock { state -> Bool in
                state.ended.append(attempt)
                endSending(delivery, in: &state)
                return state.ended.count >= Self.recordBatch || state.sendingTotal == 0
            }
            if tell { signal.signal() }
        }
    }

    /// An attempt of `delivery` is no longer under way: its callback and the worker have room for one more.
    private func endSending(_ delivery: ClaimedDelivery, in state: inout State) {
        state.sendingTotal -= 1
        state.sending[delivery.callbackId, default: 1] -= 1
    }

    /// Milliseconds until the next delivery is due, at most a poll.
    private func untilDue() throws -> Int {
        guard let due = try core.nextCallbackDeliveryDue() else { return Self.pollMilliseconds }
        let remaining = due * 1000 - core.clock.nowMilliseconds
        return Int(min(max(remaining, 1), Int64(Self.pollMilliseconds)))
    }

    private func releaseDrains(upTo request: Int) {
        let done = state.withLock { state -> [DispatchSemaphore] in
            let released = state.drains.filter { $0.request <= request }.map(\.done)
            state.drains.removeAll { $0.request <= request }
            return released
        }
        for semaphore in done { semaphore.signal() }
    }
}
