import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

/// Server → client notifications: their names, topics and shapes, and the conversion from
/// domain events.
enum Notifications {
    struct Spec {
        var method: String
        var topic: EventTopic
        var params: Schema
    }

    struct MessageSent: WireObject {
        var message: OutboundMessage
        static let fields: [WireField<Self>] = [.required("message", \.message, .object(OutboundMessage.self))]
    }

    struct RecoveryChanged: WireObject {
        var uid: String
        var accountRecovery: LatchkeyCore.AccountRecoveryStatus
        static let fields: [WireField<Self>] = [
            .required("uid", \.uid, .text), .required("accountRecovery", \.accountRecovery, .object(LatchkeyCore.AccountRecoveryStatus.self)),
        ]
    }

    struct RecoveryCallback: WireObject {
        var verificationCode: String
        var email: String?
        var phoneNumber: String?
        var link: String
        static let fields: [WireField<Self>] = [
            .required("verificationCode", \.verificationCode, .text), .optional("email", \.email, .text),
            .optional("phoneNumber", \.phoneNumber, .text), .required("link", \.link, .text),
        ]
    }

    struct OperationChanged: WireObject {
        var operation: Operation
        static let fields: [WireField<Self>] = [.required("operation", \.operation, .object(Operation.self))]
    }

    struct AuditRecorded: WireObject {
        var event: AuditEvent
        static let fields: [WireField<Self>] = [.required("event", \.event, .object(AuditEvent.self))]
    }

    /// The topic a withheld message is journaled under on a shared store (as its sent twin would be): no `EventTopic`, so every
    /// process that reads it drops it.
    static let withheldTopic = "withheld"

    static let specs: [Spec] = [
        Spec(method: "delivery/sent", topic: .delivery, params: MessageSent.objectSchema),
        Spec(method: "accountRecovery/stateChanged", topic: .accountRecovery, params: RecoveryChanged.objectSchema),
        Spec(method: "reset/accountRecoveryCallback", topic: .accountRecoveryCallback, params: RecoveryCallback.objectSchema),
        Spec(method: "operation/statusChanged", topic: .operations, params: OperationChanged.objectSchema),
        Spec(method: "audit/event", topic: .audit, params: AuditRecorded.objectSchema),
    ]

    /// The notification's method and params (nil: an event only callbacks hear of).
    static func content(for event: DomainEvent) -> (method: String, params: JSON)? {
        switch event {
        case .delivery(let message):
            return ("delivery/sent", MessageSent(message: message).wireJSON())
        case .accountRecoveryChanged(let uid, let status):
            return ("accountRecovery/stateChanged", RecoveryChanged(uid: uid, accountRecovery: status).wireJSON())
        case .accountRecoveryCallback(let code, let email, let phoneNumber, let link):
            return (
                "reset/accountRecoveryCallback",
                RecoveryCallback(verificationCode: code, email: email, phoneNumber: phoneNumber, link: link).wireJSON()
            )
        case .audit(let event):
            return ("audit/event", AuditRecorded(event: event).wireJSON())
        case .operationChanged(let operation):
            return ("operation/statusChanged", OperationChanged(operation: operation).wireJSON())
        case .registrationStateChanged, .onboardingStatusChanged, .withheldDelivery:
            return nil
        }
    }

    /// What a transaction's events journal on a shared store for the other processes' subscribers: each notification's topic and message.
    ///
    /// A message withheld (an identifier that names no one) is journaled as its sent twin would be, under `withheldTopic`, which every
    /// process drops: the commit writes alike either way (security property 11).
    static func journaled(_ events: [DomainEvent]) -> [(topic: String, message: [UInt8])] {
        events.compactMap { event in
            if case .withheldDelivery(let withheld) = event, let twin = Self.message(for: .delivery(withheld)) {
                return (withheldTopic, JSONSerializer.serialize(twin))
            }
            guard let topic = event.topic, let notification = Self.message(for: event) else { return nil }
            return (topic.rawValue, JSONSerializer.serialize(notification))
        }
    }

    static func message(for event: DomainEvent) -> JSON? {
        content(for: event).map { RPCMessage.notification($0.method, params: $0.params) }
    }
}
