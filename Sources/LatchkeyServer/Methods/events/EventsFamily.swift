import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

/// What the `events/` methods share.
enum EventsFamily {
    /// `{topics}`, in the contract's order.
    struct Topics: WireWritableParams {
        let topics: [EventTopic]
        static let wire = WireMember.required("topics", .array(.enumeration(EventTopic.self)))

    }
}

extension EventsFamily.Topics {
    /// The topics subscribed, in the contract's order.
    init(_ subscribed: Set<EventTopic>) { self.init(topics: EventTopic.allCases.filter(subscribed.contains)) }
}
