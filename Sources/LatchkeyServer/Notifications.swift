import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

/// Server → client notifications: their names, topics and shapes, and the conversion from
/// domain events.
enum Notifications {
    struct Spec {
        var method: String
        var topic: EventTopic
        var params: Schema
    }

    static let specs: [Spec] = [
        Spec(method: "delivery/sent", topic: .delivery, params: .object([Field("message", CommonSchemas.message)])),
        Spec(method: "accountRecovery/stateChanged", topic: .accountRecovery,
             params: .object([Field("uid", .text), Field("accountRecovery", CommonSchemas.accountRecovery)])),
        Spec(method: "reset/accountRecoveryCallback", topic: .accountRecoveryCallback,
             params: .object([Field("verificationCode", .text), Field.optional("email", .text),
                              Field.optional("phoneNumber", .text), Field("link", .text)])),
        Spec(method: "audit/event", topic: .audit, params: .object([Field("event", CommonSchemas.auditEvent)])),
    ]

    static func message(for event: DomainEvent) -> JSON {
        switch event {
        case .delivery(let message):
            return RPCMessage.notification("delivery/sent", params: ["message": messageJSON(message)])
        case .accountRecoveryChanged(let uid, let status):
            return RPCMessage.notification("accountRecovery/stateChanged",
                                           params: ["uid": .string(uid), "accountRecovery": accountRecoveryJSON(status)])
        case .accountRecoveryCallback(let code, let email, let phoneNumber, let link):
            var params = JSONObject([("verificationCode", .string(code))])
            if let email { params["email"] = .string(email) }
            if let phoneNumber { params["phoneNumber"] = .string(phoneNumber) }
            params["link"] = .string(link)
            return RPCMessage.notification("reset/accountRecoveryCallback", params: .object(params))
        case .audit(let event):
            return RPCMessage.notification("audit/event", params: ["event": auditJSON(event)])
        }
    }

    static func messageJSON(_ message: OutboundMessage) -> JSON {
        var object = JSONObject([
            ("id", .string(message.id)), ("channel", .string(message.channel.rawValue)), ("to", .string(message.to)),
            ("purpose", .string(message.purpose.rawValue)),
        ])
        if let code = message.code { object["code"] = .string(code) }
        if let link = message.link { object["link"] = .string(link) }
        object["text"] = .string(message.text)
        object["sentAt"] = .string(Timestamp.format(message.sentAt))
        return .object(object)
    }

    static func accountRecoveryJSON(_ status: AccountRecoveryStatus) -> JSON {
        [
            "state": .int(Int64(status.state.rawValue)),
            "reason": .int(Int64(status.reason.rawValue)),
            "startTime": .string(Timestamp.format(status.startTime)),
            "endTime": status.endTime.map { .string(Timestamp.format($0)) } ?? .null,
            "uid": .string(status.uid),
        ]
    }

    static func auditJSON(_ event: AuditEvent) -> JSON {
        var object = JSONObject([("at", .string(Timestamp.format(event.at))), ("type", .string(event.type.rawValue))])
        if let userId = event.userId { object["userId"] = .string(userId) }
        if let registrationId = event.registrationId { object["registrationId"] = .string(registrationId) }
        if let deviceId = event.deviceId { object["deviceId"] = .string(deviceId) }
        if let detail = event.detail { object["detail"] = .string(detail) }
        return .object(object)
    }
}
