import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

// The wire forms of callbacks: a callback as configured (its secret only when made or replaced) and
// a delivery.

extension Callback: WireObject {
    public static let schemaName: String? = "Callback"
    public static let fields: [WireField<Self>] = [
        .required("callbackId", \.callbackId, .text),
        .required("url", \.url, .text),
        .required("events", \.events, .array(.enumeration(CallbackEventType.self))),
        .required("applicationId", \.applicationId, .text),
    ]
}

/// `admin/configureCallback`'s answer: the callback, and its secret when this call made or replaced it.
struct ConfiguredCallback: WireObject {
    var callback: Callback
    static let fields: [WireField<Self>] =
        Callback.fields.map { $0.lifted(\.callback) } + [
            .nullable(
                "secret", \.callback.secret, .text,
                "whsec_…: in this answer only, when made (a new callback given none) or given; null when a replace kept the current one")
        ]
}

extension CallbackDelivery: WireObject {
    public static let schemaName: String? = "CallbackDelivery"
    public static let fields: [WireField<Self>] = [
        .required("deliveryId", \.deliveryId, .text),
        .required("eventId", \.eventId, .text, "webhook-id: the same on every attempt"),
        .required("type", \.type, .text, "the event type"),
        .required("status", \.status, .enumeration(CallbackDeliveryStatus.self)),
        .required("attempts", \.attempts, .int()),
        .nullable("lastAttemptAt", \.lastAttemptAt, .time),
        .nullable("lastStatusCode", \.lastStatusCode, .int()),
        .nullable(
            "lastError", \.lastError, .text,
            "why the last attempt got no answer: addressNotAllowed, resolutionFailed, connectionRefused, timeout, tlsFailure, connectionFailed; "
                + "secretUnreadable: nothing was sent, the callback's secret could not be unsealed (replace it)"),
        .nullable("nextAttemptAt", \.nextAttemptAt, .time),
    ]
}

extension Codec where Value == [CallbackEventType] {
    /// A non-empty subset of the event types.
    static let callbackEvents = Codec.array(.enumeration(CallbackEventType.self), minItems: 1)
}

extension Codec where Value == String {
    /// A callback URL as given (its rules are the domain's).
    static let callbackURL = Codec.string(minLength: 1, maxLength: 2048)
}
