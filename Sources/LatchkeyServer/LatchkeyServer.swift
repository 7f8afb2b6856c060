import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import Logging
import Synchronization

/// The method table: contract method name → params → Core call → result or error.
///
/// Also routes committed domain events to subscribed topics as notifications. Used by one thread (the
/// stdio loop), so it is not `Sendable`; the only state another thread touches is the event queue.
public final class LatchkeyServer: RPCHandler {
    public let options: ServerOptions
    public let environment: Environment
    let logger: Logger
    let sentMessages = SentMessages()
    private let pendingEvents = EventQueue()
    /// Wakes the idle loop when the callback worker's thread published events (`waker`).
    private let loopWaker = LoopWaker()
    private(set) var subscriptions: Set<EventTopic> = []
    private var opened: Latchkey?
    /// Set once the store refused this process for good (another key, a newer version): every later call's answer, until a restart.
    private var refusal: DomainError?
    /// After the store refused a failed delivery's audit row: not asked again before this (`auditDeliveryFailures`).
    private var deliveryAuditPausedUntil: ContinuousClock.Instant?
    /// When this process looks next for work other processes left due (`sharedStorePoll`).
    private var nextSharedLook: Int64?
    /// Idle looks in a row that could not open the store (`lookForOtherProcessesWork`).
    private var idleOpenFailures = 0
    /// What other targets keep per process on the system (the simulated phones), by type: see `attachment`.
    private var attachments: [ObjectIdentifier: AnyObject] = [:]
    private var faults: FaultInjectingStore?
    private let delivery: DeliveryCommand?
    /// `environment.relay`, read after every call.
    private let relay: EventRelay?
    private lazy var contractCheck = ContractCheck(logger: logger, logPath: options.contractLog)
    /// The method of the last call: a run of calls to one method looks it up once.
    private var lastMethod: MethodEntry?
    /// Whether calls and answers are logged (`--log-level debug` or `trace`); `logger` is a
    /// constant, so its level is read once rather than on every call.
    private let logsCalls: Bool

    public init(environment: Environment, options: ServerOptions, logger: Logger = Logger(label: "latchkey.server")) {
        self.environment = environment
        self.options = options
        self.logger = logger
        self.logsCalls = logger.logLevel <= .debug
        self.delivery = options.deliverCommand.map { DeliveryCommand(command: $0, logger: logger) }
        self.relay = environment.relay
    }

    /// What every call that needs the store answers once the store refused this process's key: it stays refused until a restart.
    static let keyRefusedAnswer = DomainError.storeUnavailable(retryAfter: 3600, "the store was first used with another key")
    /// What every call that needs the store answers once the store proved newer than this version.
    static let newerStoreAnswer = DomainError.storeUnavailable(retryAfter: 3600, "the store was written by a newer version")

    /// Refuses the store for good: said once, answered at once from now on.
    private func refuse(_ answer: DomainError, because reason: some Error) -> DomainError {
        refusal = answer
        logger.error("cannot open the store", metadata: ["reason": "\(reason)"])
        return answer
    }

    /// The system, opened on first use.
    ///
    /// A store that cannot be opened is an answer (`storeUnavailable`); the next call tries again (not after the store refused this
    /// process's key: said once, answered at once).
    public func core() throws -> Latchkey {
        try open(sayingWhy: true)
    }

    /// `core()`, saying why the store cannot be opened on stderr unless `sayingWhy` is false.
    private func open(sayingWhy: Bool) throws -> Latchkey {
        if let opened { return opened }
        if let refusal { throw refusal }
        let core: Latchkey
        do {
            var store = try environment.openStore()
            if !options.failMethods.isEmpty {
                let faulty = FaultInjectingStore(base: store)
                faults = faulty
                store = faulty
            }
            core = try Latchkey(
                store: store, clock: environment.clock, random: environment.random, signer: environment.signer, sentMessages: sentMessages,
                logger: Logger(label: "latchkey.core"))
        } catch let answer as DomainError {
            throw answer
        } catch let mismatch as StoreKeyMismatch {
            throw refuse(Self.keyRefusedAnswer, because: mismatch)
        } catch let newer as StoreNewerThanThisVersion {
            throw refuse(Self.newerStoreAnswer, because: newer)
        } catch let unavailable as StoreUnavailable {
            if sayingWhy { logger.error("cannot open the store", metadata: ["reason": "\(unavailable.reason)"]) }
            throw DomainError.storeUnavailable(retryAfter: unavailable.retryAfterSeconds, "the store cannot be opened")
        } catch {
            if sayingWhy { logger.error("cannot open the store", metadata: ["error": "\(error)"]) }
            throw DomainError.storeUnavailable(retryAfter: 1, "the store cannot be opened")
        }
        let queue = pendingEvents
        core.setEventSink { event in queue.append(event) }
        let waker = loopWaker
        core.setBackgroundEventsHook { waker.wake() }
        core.setCallbackRenderer(CallbackEventRenderer())
        if let relay = environment.relay {
            core.setEventJournal { tx, events in try relay.journal(Notifications.journaled(events), in: tx) }
        }
        environment.attach?(core)
        opened = core
        if idleOpenFailures > 0 {
            // Open at last (by a call, or an idle look): the look the failures put off is due now.
            idleOpenFailures = 0
            nextSharedLook = nil
        }
        return core
    }

    /// The one `T` of this process, made by `make` on the system the first time it is asked for (so a target the server does not know, such as
    /// the simulated phone's, keeps its state beside the system).
    public func attachment<T: AnyObject & Sendable>(_ make: (Latchkey) throws -> T) throws -> T {
        let key = ObjectIdentifier(T.self)
        if let kept = attachments[key] as? T { return kept }
        let made = try make(try core())
        attachments[key] = made
        return made
    }

    /// How many answers broke their method's declaration (the contract check, debug builds).
    public static var contractViolations: Int { ContractCheck.violations.load(ordering: .relaxed) }

    /// The OpenRPC document of `methods` (`rpc.discover`, `latchkey schema`).
    public static func document(version: String, methods: MethodTable) -> JSON {
        OpenRPCDocument.build(version: version, methods: methods)
    }

    public func handle(_ request: RPCRequest, emit: (JSON) -> Void) -> Result<JSON, RPCError> {
        defer { drainEvents(emit) }
        guard let method = method(named: request.method) else { return .failure(.methodNotFound) }
        let outcome = answer(method, request.params)
        if options.checkContract { contractCheck.verify(method, outcome) }
        return outcome
    }

    private func method(named name: String) -> MethodEntry? {
        if let lastMethod, lastMethod.name == name { return lastMethod }
        return lookUp(name)
    }

    @inline(never)
    private func lookUp(_ name: String) -> MethodEntry? {
        let found = options.methods.entry(named: name)
        if found != nil { lastMethod = found }
        return found
    }

    private func answer(_ method: MethodEntry, _ params: JSON?) -> Result<JSON, RPCError> {
        if method.access.adminOnly, options.noAdmin { return .failure(closedByNoAdmin(method)) }
        let object: JSONObject
        switch params {
        case nil: object = JSONObject()
        case .object(let given)?: object = given
        case .array(let items)? where items.isEmpty: object = JSONObject()
        default: return .failure(Self.paramsNotAnObject())
        }
        // Logs name the method and the outcome only: never params, which may hold secrets.
        if logsCalls { log(.trace, "call", method) }
        let failing = !options.failMethods.isEmpty && options.failMethods.contains(method.name)
        let context = CallContext(server: self, access: method.access, failing: failing)
        do {
            let result = failing ? try fail(method, object, context) : try method.invoke(object, context)
            if logsCalls { log(.debug, "answered", method) }
            return .success(result)
        } catch {
            return .failure(answer(for: error, method))
        }
    }

    // What a call seldom runs is kept out of `answer`, so that what every call runs fits in a
    // few cache lines.

    @inline(never)
    private func closedByNoAdmin(_ method: MethodEntry) -> RPCError {
        ErrorCodes.rpcError(DomainError(.forbidden, "\(method.name) is closed by --no-admin"))
    }

    @inline(never)
    private static func paramsNotAnObject() -> RPCError {
        .invalidParams([ParamProblem("", "must be an object: methods take their params by name")])
    }

    @inline(never)
    private func log(_ level: Logger.Level, _ message: Logger.Message, _ method: MethodEntry) {
        logger.log(level: level, message, metadata: ["method": "\(method.name)"])
    }

    /// The error a call that threw answers: a refusal, invalid params, or an internal error (logged).
    @inline(never)
    private func answer(for error: any Error, _ method: MethodEntry) -> RPCError {
        switch error {
        case let refusal as DomainError:
            if logsCalls { logger.debug("refused", metadata: ["method": "\(method.name)", "reason": "\(refusal.reason.rawValue)"]) }
            return ErrorCodes.rpcError(refusal)
        case let invalid as RPCError:
            return invalid
        default:
            logger.error("internal error", metadata: ["method": "\(method.name)", "error": "\(String(describing: type(of: error)))"])
            return .internalError
        }
    }

    /// `--fail-method`: every call with valid params fails as a broken store would; what it
    /// wrote is rolled back, and one that never reached the store (or was refused) fails too.
    private func fail(_ method: MethodEntry, _ object: JSONObject, _ context: CallContext) throws -> JSON {
        do {
            _ = try method.invoke(object, context)
            faults?.disarm()
        } catch let invalid as RPCError {
            throw invalid
        } catch {
            faults?.disarm()
        }
        throw InjectedStoreFault()
    }

    public func millisecondsUntilDue() -> Int? {
        let relayPoll = environment.relay.map { $0.isListening && !subscriptions.isEmpty } == true ? relayPollMilliseconds : nil
        // Deliveries under way: wake to audit a failure when it comes, request or not.
        let deliveryPoll = delivery?.isBusy == true ? Self.deliveryPollMilliseconds : nil
        // A store that could not tell whether it has a callback: look again soon, call or not.
        let askPoll = opened?.isAskingForCallbacks == true ? Self.dueRetryMilliseconds : nil
        let poll = [relayPoll, deliveryPoll, sharedStorePoll, askPoll].compactMap { $0 }.min()
        guard let opened, !environment.clock.isManual else { return poll }
        let due: UnixTime
        do {
            guard let next = try opened.nextDueTime() else { return poll }
            due = next
        } catch {
            // The store cannot tell what is due: look again shortly, never "nothing due".
            return min(Self.dueRetryMilliseconds, poll ?? Self.dueRetryMilliseconds)
        }
        let remaining = Int(clamping: max(due * 1000 - environment.clock.nowMilliseconds, 0) + 5)
        return min(remaining, poll ?? remaining)
    }

    /// How often an idle process looks for finished deliveries while some are under way.
    static let deliveryPollMilliseconds = 100
    /// How soon an idle process asks the store again what it could not tell (what is due, whether it has a callback), and how soon
    /// a failed delivery's audit row is offered again.
    static let dueRetryMilliseconds = 1000

    /// Polled only while the process has seen a callback: its worker's thread publishes events (`callbackFailed`) that no call of
    /// this loop's causes.
    public var waker: LoopWaker? { opened?.hasCallbacksInSight == true ? loopWaker : nil }

    public func runDue(emit: (JSON) -> Void) {
        if sharedStorePoll != nil { lookForOtherProcessesWork() }
        if let opened { try? runDueWork(opened) }
        drainEvents(emit)
    }

    /// Milliseconds until this process looks again for work other processes left due on a shared store (nil: not on one, or a
    /// manual clock).
    ///
    /// Another process may leave an operation to expire, or deliveries to take over when it dies, and nothing on the store tells
    /// this one: it looks every `sharedStorePollMilliseconds`, on a call on the store or idle — whichever comes first, so a process
    /// kept busy with calls that need no store looks too — opening the store if no call has yet (a PostgreSQL process as well:
    /// one restarted after a crash takes over its attempts with no call).
    private var sharedStorePoll: Int? {
        guard options.storeKind != .memory, !environment.clock.isManual else { return nil }
        guard let next = nextSharedLook else { return 0 }
        return Int(clamping: max(0, next - environment.clock.nowMilliseconds))
    }

    private func lookForOtherProcessesWork() {
        let now = environment.clock.nowMilliseconds
        guard nextSharedLook.map({ now >= $0 }) ?? true else { return }
        let core: Latchkey
        do {
            core = try open(sayingWhy: idleOpenFailures == 0)
            nextSharedLook = now + Int64(Self.sharedStorePollMilliseconds)
        } catch {
            // Not open and cannot be (only an idle look gets here): looked for again 20, 40, then every 60 s — a server that
            // accepts and never answers holds the idle loop for the connect timeout each time — and said once.
            idleOpenFailures += 1
            nextSharedLook = now + Int64(min(20_000 << min(idleOpenFailures - 1, 2), 60_000))
            return
        }
        core.forgetDueTimes()
        try? core.lookForCallbacks()
    }

    /// How often a process on a shared store looks for what other processes left due: what another process made due a few
    /// seconds later (a short grace period, a callback's 5 s retry) and then exited leaving it, happens at most this late.
    static let sharedStorePollMilliseconds = 2_000
    /// At exit, how long callback attempts under way get to end and be recorded.
    static let callbackExitGraceMilliseconds = 2_000

    /// At exit: the deliveries still under way get a short grace (`DeliveryCommand.exitGrace`) and are then stopped; every failure is audited.
    ///
    /// Returns within a few seconds.
    public func finish() {
        opened?.stopCallbackDeliveries(within: Self.callbackExitGraceMilliseconds)
        guard let delivery else { return }
        delivery.finish()
        auditDeliveryFailures(delivery, atExit: true)
    }

    /// Audits the delivery commands' failures.
    ///
    /// Those the store cannot take now (a failover, a busy file) are kept for the next look — the next call, or the idle poll
    /// while any wait — a second later at the soonest, and said once until the store takes one again; at exit, what is left is
    /// said lost.
    private func auditDeliveryFailures(_ delivery: DeliveryCommand, atExit: Bool = false) {
        guard let opened else { return }
        if !atExit, let until = deliveryAuditPausedUntil, ContinuousClock.now < until { return }
        var failures = delivery.takeFailures()[...]
        while let purpose = failures.first {
            do {
                try opened.recordAudit(.deliveryFailed, detail: purpose.rawValue)
            } catch {
                let metadata: Logger.Metadata = ["count": "\(failures.count)", "error": "\(String(describing: type(of: error)))"]
                if atExit {
                    logger.error("failed deliveries could not be audited before exit", metadata: metadata)
                } else if deliveryAuditPausedUntil == nil {
                    logger.warning("could not audit a failed delivery yet; it is kept for the next look", metadata: metadata)
                }
                delivery.giveBack(Array(failures))
                deliveryAuditPausedUntil = ContinuousClock.now + .milliseconds(Self.dueRetryMilliseconds)
                return
            }
            failures.removeFirst()
            deliveryAuditPausedUntil = nil
        }
    }

    /// What every call does once its params are read: time-driven work that is due (for calls
    /// on the store), and, under `--fail-method`, arming the failing store.
    /// - Throws: a store failure of the due work; under `--fail-method`, `InjectedStoreFault` for a method that changes the process.
    func prepare(_ context: CallContext) throws {
        if context.access.needsStore {
            let core = try core()
            if sharedStorePoll != nil { lookForOtherProcessesWork() }
            try runDueWork(core)
        }
        guard context.failing else { return }
        // What no rollback undoes is not carried out at all: the call fails before it runs.
        if context.access.changesProcess { throw InjectedStoreFault() }
        faults?.arm()
    }

    private func runDueWork(_ core: Latchkey) throws {
        do {
            try core.runDueTransitions()
        } catch let answer as DomainError where answer.reason == .storeUnavailable {
            throw answer
        } catch {
            logger.error("time-driven work failed", metadata: ["error": "\(String(describing: type(of: error)))"])
        }
    }

    // MARK: events

    func subscribe(_ topics: [EventTopic]) {
        subscriptions.formUnion(topics)
        if !topics.isEmpty { environment.relay?.start() }
    }
    func unsubscribe(_ topics: [EventTopic]) { subscriptions.subtract(topics) }

    /// After every call: what its events (and other processes', and deliveries') call for.
    private func drainEvents(_ emit: (JSON) -> Void) {
        guard delivery != nil || relay != nil || pendingEvents.mayHoldEvents else { return }
        drainPendingEvents(emit)
    }

    @inline(never)
    private func drainPendingEvents(_ emit: (JSON) -> Void) {
        if let delivery { auditDeliveryFailures(delivery) }
        if let relay { relayEvents(relay, emit) }
        guard pendingEvents.mayHoldEvents else { return }
        for event in pendingEvents.takeAll() {
            if case .delivery(let message) = event, let delivery { delivery.start(message) }
            guard let topic = event.topic, subscriptions.contains(topic), let message = Notifications.message(for: event) else { continue }
            if options.noAdmin, topic.isAdminOnly { continue }
            emit(message)
        }
    }

    /// With other processes on the store: what they caused (committed before this process's own events were drained).
    ///
    /// This process's own events reached them through the journal, written inside the transactions that caused them.
    private func relayEvents(_ relay: EventRelay, _ emit: (JSON) -> Void) {
        for (topic, message) in relay.receive() {
            guard let topic = EventTopic(rawValue: topic), subscriptions.contains(topic) else { continue }
            if options.noAdmin, topic.isAdminOnly { continue }
            guard let notification = try? JSONParser.parse(message) else { continue }
            emit(notification)
        }
        relay.tidy()
    }
}
