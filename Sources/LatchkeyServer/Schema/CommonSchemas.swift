import LatchkeyCore

/// Shapes used by several methods, named in `components.schemas`.
enum CommonSchemas {
    static let time: Schema = .string(format: "date-time")

    static let message: Schema = .named("Message", .object([
        Field("id", .text), Field("channel", .enumeration(DeliveryChannel.allCases.map(\.rawValue))),
        Field("to", .text), Field("purpose", .enumeration(DeliveryPurpose.allCases.map(\.rawValue))),
        Field.optional("code", .text, "the one-time code, as the channel would carry it"),
        Field.optional("link", .text), Field("text", .text), Field("sentAt", time),
    ]))

    static let accountRecovery: Schema = .named("AccountRecovery", .object([
        Field("state", .integerEnumeration([0, 1, 2, 3, 4]), "0 none, 1 grace period, 2 cancelled, 3 insecure, 4 expired"),
        Field("reason", .integerEnumeration([0, 1, 2]), "0 none, 1 cancelled by the user, 2 authenticated in a new session"),
        Field("startTime", time), Field("endTime", .nullable(time)), Field("uid", .text),
    ]))

    static let auditEvent: Schema = .named("AuditEvent", .object([
        Field("at", time), Field("type", .enumeration(AuditEventType.allCases.map(\.rawValue))),
        Field.optional("userId", .text), Field.optional("registrationId", .text), Field.optional("deviceId", .text),
        Field.optional("detail", .text),
    ]))

    static let empty: Schema = .object([])
    static let topics: Schema = .array(.enumeration(EventTopic.allCases.map(\.rawValue)))
}
