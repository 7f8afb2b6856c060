import LatchkeyCore
import LatchkeyJSON

/// `rpc.discover`, `ping`, `server/info`, events and the clock.
enum MetaMethods {
    static let all: [MethodSpec] = [
        MethodSpec("rpc.discover", "The OpenRPC document describing every method.", result: .freeObject) { _, context in
            context.server.document
        },
        MethodSpec("ping", "Answers with what it was given.", params: [.optional("echo", .any, "any value")],
                   result: .object([Field("echo", .any)])) { params, _ in
            ["echo": params.object["echo"] ?? .null]
        },
        MethodSpec("server/info", "What this process is and how it was started.",
                   result: .object([Field("name", .text), Field("version", .text), Field("store", .enumeration(["sqlite", "memory"])),
                                    Field("clock", .enumeration(["system", "manual"])), Field("seeded", .boolean)])) { _, context in
            [
                "name": "latchkey", "version": .string(context.server.options.version),
                "store": .string(context.core.store.kind), "clock": context.core.clock.isManual ? "manual" : "system",
                "seeded": .bool(context.core.random.isSeeded),
            ]
        },
        MethodSpec("events/subscribe", "Starts notifications for topics; answers with every topic subscribed.",
                   params: [Field("topics", CommonSchemas.topics)], result: .object([Field("topics", CommonSchemas.topics)]),
                   errors: [.forbidden]) { params, context in
            let topics = params.strings("topics").compactMap(EventTopic.init(rawValue:))
            if context.server.options.noAdmin, let closed = topics.first(where: \.isAdminOnly) {
                throw DomainError(.forbidden, "the \(closed.rawValue) topic is closed by --no-admin")
            }
            context.server.subscribe(topics)
            return ["topics": .strings(sortedTopics(context.server.subscriptions))]
        },
        MethodSpec("events/unsubscribe", "Stops notifications for topics; answers with the topics still subscribed.",
                   params: [Field("topics", CommonSchemas.topics)], result: .object([Field("topics", CommonSchemas.topics)])) { params, context in
            context.server.unsubscribe(params.strings("topics").compactMap(EventTopic.init(rawValue:)))
            return ["topics": .strings(sortedTopics(context.server.subscriptions))]
        },
        MethodSpec("clock/now", "The server's current time.", result: .object([Field("now", CommonSchemas.time)])) { _, context in
            ["now": .string(Timestamp.format(context.core.clock.now))]
        },
        MethodSpec("clock/advance", "Moves a manual clock forward; due state changes happen and are notified.",
                   params: [Field("seconds", .integer(minimum: 0, maximum: Wire.maxDuration))], result: .object([Field("now", CommonSchemas.time)]),
                   errors: [.forbidden], adminOnly: true) { params, context in
            try context.core.advanceClock(by: params.int("seconds"))
            return ["now": .string(Timestamp.format(context.core.clock.now))]
        },
    ]

    /// Topics in the contract's order.
    static func sortedTopics(_ topics: Set<EventTopic>) -> [String] {
        EventTopic.allCases.filter(topics.contains).map(\.rawValue)
    }
}
