import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeySimulator
import LatchkeyJSON
import LatchkeyRPC

/// `rpc.discover`, `ping`, `server/info`, events and the clock.
enum MetaMethods {
    // Concrete types here, so each entry's decoding and encoding is specialised (no generic
    // metadata lookups per call).
    static let all: [MethodEntry] = [
        .init(Discover.self), .init(Ping.self), .init(ServerInfo.self), .init(Subscribe.self), .init(Unsubscribe.self),
        .init(ClockNow.self), .init(ClockAdvance.self),
    ]

    enum Discover: RPCMethod {
        static let declaration = MethodDeclaration("rpc.discover", "The OpenRPC document describing every method.",
            description: """
            Returns the OpenRPC 1.3 document of this server: every method with its params, result and errors, the \
            notifications and the error registry. Generated from the same registry that dispatches calls.
            """,
            access: .local)
        static let result = Codec<JSON>.freeObject
        static func handle(_ params: NoParams, _ context: CallContext) throws -> JSON {
            OpenRPCDocument.build(version: context.options.version)
        }
    }

    enum Ping: RPCMethod {
        static let declaration = MethodDeclaration("ping", "Answers with what it was given.",
            description: """
            Echoes the optional `echo` value back unchanged. Needs no store, so it answers even while the store is \
            unreachable; use it to check that the process is alive.
            """,
            access: .local)
        struct Params: WireReadable {
            var echo: JSON?
            static let fields: [WireField<Self>] = [.optional("echo", \.echo, .any, "any value")]
        }
        static let result = Codec.member("echo", .any)
        static func handle(_ params: Params, _ context: CallContext) throws -> JSON { params.echo ?? .null }
    }

    enum ServerInfo: RPCMethod {
        static let declaration = MethodDeclaration("server/info", "What this process is and how it was started.",
            description: """
            Reports the server's name and version, which store it runs on (sqlite, postgresql or memory), whether the \
            clock is the system's or manual, and whether randomness is seeded (a test mode). Changes nothing.
            """,
            access: .local)
        struct Result: WireObject {
            enum StoreKind: String, CaseIterable, Sendable { case sqlite, postgresql, memory }
            enum ClockKind: String, CaseIterable, Sendable { case system, manual }
            var name = "latchkey"
            var version: String
            var store: StoreKind
            var clock: ClockKind
            var seeded: Bool
            static let fields: [WireField<Self>] = [
                .required("name", \.name, .text), .required("version", \.version, .text),
                .required("store", \.store, .enumeration(StoreKind.self)), .required("clock", \.clock, .enumeration(ClockKind.self)),
                .required("seeded", \.seeded, .bool),
            ]
        }
        static func handle(_ params: NoParams, _ context: CallContext) throws -> Result {
            Result(version: context.options.version, store: Result.StoreKind(rawValue: context.options.storeKind) ?? .memory,
                   clock: context.clock.isManual ? .manual : .system, seeded: context.random.isSeeded)
        }
    }

    /// `{topics}`, in the contract's order.
    struct Topics: WireReadable {
        var topics: [EventTopic] = []
        static let fields: [WireField<Self>] = [.required("topics", \.topics, .array(.enumeration(EventTopic.self)))]

        init() {}
        init(_ subscribed: Set<EventTopic>) { topics = EventTopic.allCases.filter(subscribed.contains) }
    }

    enum Subscribe: RPCMethod {
        static let declaration = MethodDeclaration(
            "events/subscribe", "Starts notifications for topics; answers with every topic subscribed.",
            description: """
            Adds topics (delivery, accountRecovery, accountRecoveryCallback, audit) to this connection's \
            subscriptions; from then on the matching notifications are sent before the response of the call that \
            caused them. The delivery and audit topics are closed by --no-admin.
            """,
            errors: [.forbidden], access: .local)
        static func handle(_ params: Topics, _ context: CallContext) throws -> Topics {
            if context.options.noAdmin, let closed = params.topics.first(where: \.isAdminOnly) {
                throw DomainError(.forbidden, "the \(closed.rawValue) topic is closed by --no-admin")
            }
            context.server.subscribe(params.topics)
            return Topics(context.server.subscriptions)
        }
    }

    enum Unsubscribe: RPCMethod {
        static let declaration = MethodDeclaration(
            "events/unsubscribe", "Stops notifications for topics; answers with the topics still subscribed.",
            description: """
            Removes topics from this connection's subscriptions and answers with the topics still subscribed. \
            Unsubscribing from a topic not subscribed is not an error.
            """,
            access: .local)
        static func handle(_ params: Topics, _ context: CallContext) throws -> Topics {
            context.server.unsubscribe(params.topics)
            return Topics(context.server.subscriptions)
        }
    }

    /// `{now}`.
    static let now = Codec.member("now", Codec<UnixTime>.time)

    enum ClockNow: RPCMethod {
        static let declaration = MethodDeclaration("clock/now", "The server's current time.",
            description: """
            The server's current time (RFC 3339). Under --clock manual it stands still and moves only with \
            clock/advance.
            """,
            access: .local)
        static let result = now
        static func handle(_ params: NoParams, _ context: CallContext) throws -> UnixTime { context.clock.now }
    }

    enum ClockAdvance: RPCMethod {
        static let declaration = MethodDeclaration(
            "clock/advance", "Moves a manual clock forward; due state changes happen and are notified.",
            description: """
            Moves a manual clock forward by the given seconds; every time-driven change that falls due (grace periods \
            ending, insecure windows closing) happens and is notified. Refused (forbidden) on the system clock and \
            under --no-admin.
            """,
            errors: [.forbidden], access: .admin)
        struct Params: WireReadable {
            var seconds: Int64 = 0
            static let fields: [WireField<Self>] = [.required("seconds", \.seconds, .seconds(minimum: 0))]
        }
        static let result = now
        static func handle(_ params: Params, _ context: CallContext) throws -> UnixTime {
            guard context.clock.isManual else {
                throw DomainError(.forbidden, "clock/advance needs --clock manual; the system clock cannot be moved")
            }
            guard Timestamp.writable.contains(context.clock.now + params.seconds) else {
                throw RPCError.invalidParams([ParamProblem("seconds", "would move the clock past 9999-12-31T23:59:59Z")])
            }
            try context.core.advanceClock(by: params.seconds)
            return context.clock.now
        }
    }
}
