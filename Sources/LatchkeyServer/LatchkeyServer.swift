import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import Logging
import Synchronization

/// How the process was started, as far as the method table cares.
public struct ServerOptions: Sendable {
    public var version: String
    public var noAdmin: Bool
    public var deliverCommand: String?
    /// `--fail-method`: these methods answer `internalError`, their transactions rolled back.
    public var faultInjection: FaultInjection?

    public init(version: String, noAdmin: Bool = false, deliverCommand: String? = nil, faultInjection: FaultInjection? = nil) {
        self.version = version
        self.noAdmin = noAdmin
        self.deliverCommand = deliverCommand
        self.faultInjection = faultInjection
    }
}

/// Methods made to fail as if the store were broken (a testing aid for clients).
public struct FaultInjection: Sendable {
    public var methods: Set<String>
    public var store: FaultInjectingStore

    public init(methods: Set<String>, store: FaultInjectingStore) {
        self.methods = methods
        self.store = store
    }

    /// The names that are not methods of the contract (a usage error).
    public static func unknownMethods(_ names: [String]) -> [String] {
        let known = Set(MethodRegistry.all.map(\.name))
        return names.filter { !known.contains($0) }
    }
}

/// The method table: contract method name → params → Core call → result or error.
/// Also routes committed domain events to subscribed topics as notifications.
public final class LatchkeyServer: RPCHandler, @unchecked Sendable {
    public let core: Latchkey
    public let options: ServerOptions
    let logger: Logger
    private let table: [String: MethodSpec]
    private let pendingEvents = EventQueue()
    private(set) var subscriptions: Set<EventTopic> = []
    private var cachedDocument: JSON?
    let delivery: DeliveryCommand?

    public init(core: Latchkey, options: ServerOptions, logger: Logger = Logger(label: "latchkey.server")) {
        self.core = core
        self.options = options
        self.logger = logger
        var table: [String: MethodSpec] = [:]
        for method in MethodRegistry.all { table[method.name] = method }
        self.table = table
        delivery = options.deliverCommand.map { DeliveryCommand(command: $0, logger: logger) }
        let queue = pendingEvents
        core.setEventSink { event in queue.append(event) }
    }

    /// The OpenRPC document (`rpc.discover`, `latchkey schema`).
    public var document: JSON {
        if let cachedDocument { return cachedDocument }
        let built = OpenRPCDocument.build(methods: MethodRegistry.all, version: options.version)
        cachedDocument = built
        return built
    }

    /// The OpenRPC document without starting a store (for `latchkey schema`).
    public static func document(version: String) -> JSON {
        OpenRPCDocument.build(methods: MethodRegistry.all, version: version)
    }

    public func handle(_ request: RPCRequest, emit: (JSON) -> Void) -> Result<JSON, RPCError> {
        defer { drainEvents(emit) }
        guard let method = table[request.method] else { return .failure(.methodNotFound(request.method)) }
        if method.adminOnly, options.noAdmin {
            return .failure(ErrorRegistry.rpcError(DomainError(.forbidden, "\(method.name) is closed by --no-admin")))
        }
        let object: JSONObject
        switch request.params {
        case nil: object = JSONObject()
        case .object(let given)?: object = given
        case .array(let items)? where items.isEmpty: object = JSONObject()
        default:
            return .failure(.invalidParams([("", "must be an object: methods take their params by name")]))
        }
        var problems: [(path: String, message: String)] = []
        Schema.validateMembers(object, fields: method.params, at: "", into: &problems)
        if !problems.isEmpty { return .failure(.invalidParams(problems)) }
        // Logs name the method and the outcome only: never params, which may hold secrets.
        logger.trace("call", metadata: ["method": "\(method.name)"])
        do {
            runDueWork()
            if let faults = options.faultInjection, faults.methods.contains(method.name) {
                // Every valid call fails: what it wrote is rolled back, and one that never
                // reached the store (or was refused by the domain) fails all the same.
                do {
                    _ = try faults.store.failing { try method.handler(Params(object), CallContext(server: self)) }
                } catch is DomainError {}
                throw InjectedStoreFault()
            }
            let result = try method.handler(Params(object), CallContext(server: self))
            logger.debug("answered", metadata: ["method": "\(method.name)"])
            return .success(result)
        } catch let error as DomainError {
            logger.debug("refused", metadata: ["method": "\(method.name)", "reason": "\(error.reason.rawValue)"])
            return .failure(ErrorRegistry.rpcError(error))
        } catch let error as RPCError {
            return .failure(error)
        } catch {
            logger.error("internal error", metadata: ["method": "\(method.name)", "error": "\(String(describing: type(of: error)))"])
            return .failure(.internalError())
        }
    }

    public func millisecondsUntilDue() -> Int? {
        guard let due = core.nextDueTime() else { return nil }
        let remaining = due * 1000 - core.clock.nowMilliseconds
        return core.clock.isManual ? nil : Int(clamping: max(remaining, 0) + 5)
    }

    public func runDue(emit: (JSON) -> Void) {
        runDueWork()
        drainEvents(emit)
    }

    private func runDueWork() {
        do {
            try core.runDueTransitions()
        } catch {
            logger.error("time-driven work failed", metadata: ["error": "\(String(describing: type(of: error)))"])
        }
    }

    // MARK: events

    func subscribe(_ topics: [EventTopic]) { subscriptions.formUnion(topics) }
    func unsubscribe(_ topics: [EventTopic]) { subscriptions.subtract(topics) }

    private func drainEvents(_ emit: (JSON) -> Void) {
        let events = pendingEvents.takeAll()
        for event in events {
            if case .delivery(let message) = event, let delivery {
                if !delivery.run(message) {
                    core.recordAudit(.deliveryFailed, detail: message.purpose.rawValue)
                    drainEvents(emit)
                }
            }
            guard subscriptions.contains(event.topic) else { continue }
            if options.noAdmin, event.topic.isAdminOnly { continue }
            emit(Notifications.message(for: event))
        }
    }
}

/// Committed domain events waiting to be turned into notifications.
final class EventQueue: Sendable {
    private let events = Mutex<[DomainEvent]>([])

    func append(_ event: DomainEvent) { events.withLock { $0.append(event) } }

    func takeAll() -> [DomainEvent] {
        events.withLock { list in
            let taken = list
            list.removeAll()
            return taken
        }
    }
}
