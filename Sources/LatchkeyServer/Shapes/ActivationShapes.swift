import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

extension ActivationOutcome: WireObject {
    public static let fields: [WireField<Self>] = [
        .computed("responseType", \.responseType, .enumeration(ResponseType.self, [.activated])),
        .computed("contextContent", \.contextContent, .nullable(.text), "null: an activation carries no context"),
        .required("registrationId", \.registrationId, .text),
        .required("activatedAuthMethods", \.activatedAuthMethods, .authMethods),
        .token(\.token),
    ]
    var responseType: ResponseType { .activated }
    var contextContent: String? { nil }
}

extension ChallengeStanding: WireObject {
    public static let fields: [WireField<Self>] = [
        .nullable("lastAttempt", \.lastAttempt, .time),
        .required("totalAttemptsPIN", \.totalAttemptsPIN, .int()),
        .required("remainingAttemptsPIN", \.remainingAttemptsPIN, .int()),
        .optional("authenticationId", \.authenticationId, .text, "when a pushed authentication was picked up"),
        .nullable("contextTitle", \.contextTitle, .text),
        .nullable("contextContent", \.contextContent, .text),
        .nullable("contextMIME", \.contextMIME, .text),
    ]
}

/// What a finish reports it did, as the seed's result objects name it.
enum ResponseType: String, Sendable, CaseIterable {
    case activated, authenticated
}

/// The PIN rules of an application, as several results carry them.
public func pinRuleFields<Root>(
    _ type: KeyPath<Root, PinCodeType> & Sendable, _ min: KeyPath<Root, Int> & Sendable, _ max: KeyPath<Root, Int> & Sendable
) -> [WireField<Root>] {
    [
        .required("pinCodeType", type, .enumeration(PinCodeType.self)),
        .required("pinCodeLengthMin", min, .int()), .required("pinCodeLengthMax", max, .int()),
    ]
}

extension Codec where Value == [AuthMethod] {
    /// `{activatedAuthMethods}`.
    public static let activatedAuthMethods = Codec.member("activatedAuthMethods", .authMethods)
}
