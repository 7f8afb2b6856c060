import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

/// What the `events/` methods share.
enum EventsFamily {
    /// `{topics}`, in the contract's order.
    struct Topics: WireReadable {
        var topics: [EventTopic] = []
        static let fields: [WireField<Self>] = [.required("topics", \.topics, .array(.enumeration(EventTopic.self)))]

        init() {}
        init(_ subscribed: Set<EventTopic>) { topics = EventTopic.allCases.filter(subscribed.contains) }
    }
}
