import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

/// Wire forms several methods share.
extension Codec where Value == UnixTime {
    /// An RFC 3339 time in UTC with whole seconds (`2026-01-01T00:00:00Z`).
    static let time = Codec<UnixTime>(
        schema: .string(format: "date-time"),
        read: { json, path, problems in
            guard case .string(let text) = json, let time = Timestamp.parse(text) else {
                problems.append(ParamProblem(path, "must be an RFC 3339 time such as 2026-01-01T00:00:00Z"))
                return nil
            }
            return time
        }, write: { .string(Timestamp.format($0)) })
}

extension Codec where Value == Int64 {
    /// The longest duration any method accepts: 100 years, so no time arithmetic can overflow.
    static let maxDuration: Int64 = Timestamp.longestLifetime

    /// A duration in seconds, at least `minimum`, at most 100 years.
    static func seconds(minimum: Int64 = 1) -> Codec<Int64> { .integer(minimum: minimum, maximum: maxDuration) }

    static func within(_ bounds: ClosedRange<Int64>) -> Codec<Int64> {
        .integer(minimum: bounds.lowerBound, maximum: bounds.upperBound)
    }
}

extension Codec where Value == Int {
    static func within(_ bounds: ClosedRange<Int64>) -> Codec<Int> {
        .int(minimum: bounds.lowerBound, maximum: bounds.upperBound)
    }
}

extension Codec where Value == String {
    /// An email address.
    static let email = Codec.text.checked { Identifiers.isEmail($0) ? nil : "must be an email address" }
    /// An E.164 phone number: `+` and digits.
    static let phoneNumber = Codec.text.checked { Identifiers.isPhoneNumber($0) ? nil : "must be an E.164 number: + and digits" }
    /// A calendar date, `YYYY-MM-DD`.
    static let date = Codec.string(format: "date").checked { Timestamp.isValidDate($0) ? nil : "must be a date written YYYY-MM-DD" }
}

extension Codec where Value == AuthMethod {
    public static let authMethod = Codec.enumeration(AuthMethod.self)
}

extension Codec where Value == [AuthMethod] {
    public static let authMethods = Codec.array(.authMethod)
}

extension Codec where Value == [String] {
    static let strings = Codec.array(.text)
}

extension WireField {
    /// The application (`default` when left out).
    public static func applicationId(_ keyPath: WritableKeyPath<Root, String?> & Sendable) -> WireField {
        .optional("applicationId", keyPath, .identifier, "defaults to `default`")
    }

    /// What a finish should also yield (`none`: no token).
    public static func tokenPurpose(_ keyPath: WritableKeyPath<Root, TokenPurpose> & Sendable) -> WireField {
        .defaulted(
            "tokenPurpose", keyPath, .enumeration(TokenPurpose.self), default: TokenPurpose.none,
            "other purposes return a token")
    }

    /// A token a finish issued (present when its purpose was not `none`).
    static func token(_ keyPath: WritableKeyPath<Root, String?> & Sendable) -> WireField {
        .optional("token", keyPath, .text, "present when tokenPurpose is not none")
    }

    /// A registration id.
    static func registrationId(_ keyPath: WritableKeyPath<Root, String> & Sendable) -> WireField {
        .required("registrationId", keyPath, .identifier)
    }
}
