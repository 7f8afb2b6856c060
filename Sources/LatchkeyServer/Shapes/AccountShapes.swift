import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

extension Codec where Value == String {
    /// What is wrong with `text` as an email address (nil: nothing).
    static func emailProblem(_ text: String) -> String? {
        Identifiers.isEmail(text) ? nil : "must be an email address"
    }
    /// An email address.
    static let email = Codec.text.checked(emailProblem)
    /// What is wrong with `text` as an E.164 phone number (nil: nothing).
    static func phoneNumberProblem(_ text: String) -> String? {
        Identifiers.isPhoneNumber(text) ? nil : "must be an E.164 number: + and digits"
    }
    /// An E.164 phone number: `+` and digits.
    static let phoneNumber = Codec.text.checked(phoneNumberProblem)
    /// An email address or an E.164 phone number (where a message may go).
    static let address = Codec.text.checked { text in
        emailProblem(text) == nil || phoneNumberProblem(text) == nil ? nil : "must be an email address or an E.164 number: + and digits"
    }
    /// A calendar date, `YYYY-MM-DD`.
    static let date = Codec.string(format: "date").checked { Timestamp.isValidDate($0) ? nil : "must be a date written YYYY-MM-DD" }
}

extension LatchkeyCore.AccountRecoveryStatus: WireObject {
    public static let schemaName: String? = "AccountRecovery"
    public static let fields: [WireField<Self>] = [
        .required("state", \.state, .integerEnumeration(AccountRecoveryState.self), "0 none, 1 grace period, 2 cancelled, 3 insecure, 4 expired"),
        .nullable(
            "reason", \.reason, .integerEnumeration(AccountRecoveryReason.self),
            "null when no process is ongoing (state 0); 0 none, 1 cancelled by the user, 2 authenticated in a new session"),
        .required("startTime", \.startTime, .time),
        .nullable("endTime", \.endTime, .time),
        .required("uid", \.uid, .text),
    ]
}

extension SettingsItem: WireObject {
    public static let fields: [WireField<Self>] = [
        .required("title", \.title, .text), .required("subtitle", \.subtitle, .text), .required("canCancel", \.canCancel, .bool),
    ]
}

extension UserProfile: WireObject {
    public static let fields: [WireField<Self>] = [
        .required("uid", \.uid, .text),
        .nullable("email", \.email, .text),
        .nullable("phoneNumber", \.phoneNumber, .text),
        .nullable("accountRecovery", \.accountRecovery, .object(LatchkeyCore.AccountRecoveryStatus.self)),
    ]
}

extension RecoveryMethodsOutcome: WireObject {
    public static let fields: [WireField<Self>] = [
        .required("recoveryMethods", \.recoveryMethods, .recoveryMethods), .token(\.token),
    ]
}
