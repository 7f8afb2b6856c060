import LatchkeyContract
import LatchkeyJSON
import LatchkeyRPC

/// Wire forms several methods share.
extension Codec where Value == UnixTime {
    /// An RFC 3339 time in UTC with whole seconds (`2026-01-01T00:00:00Z`).
    public static let time = Codec<UnixTime>(
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
    public static let maxDuration: Int64 = Timestamp.longestLifetime

    /// A duration in seconds, at least `minimum`, at most 100 years.
    public static func seconds(minimum: Int64 = 1) -> Codec<Int64> { .integer(minimum: minimum, maximum: maxDuration) }

    public static func within(_ bounds: ClosedRange<Int64>) -> Codec<Int64> {
        .integer(minimum: bounds.lowerBound, maximum: bounds.upperBound)
    }
}

extension Codec where Value == Int {
    public static func within(_ bounds: ClosedRange<Int64>) -> Codec<Int> {
        .int(minimum: bounds.lowerBound, maximum: bounds.upperBound)
    }
}

extension Codec where Value == AuthMethod {
    public static let authMethod = Codec.enumeration(AuthMethod.self)
}

extension Codec where Value == [AuthMethod] {
    public static let authMethods = Codec.array(.authMethod)
}

extension Codec where Value == [String] {
    public static let strings = Codec.array(.text)
}

extension WireMember where Value == String? {
    /// The application (`default` when left out).
    public static let applicationId = WireMember.optional("applicationId", .identifier, "defaults to `default`")
}

extension WireMember where Value == TokenPurpose {
    /// What a finish should also yield (`none`: no token).
    public static let tokenPurpose = WireMember.defaulted(
        "tokenPurpose", .enumeration(TokenPurpose.self), default: TokenPurpose.none, "other purposes return a token")
}

extension WireMember where Value == String {
    /// A registration id.
    public static let registrationId = WireMember.required("registrationId", .identifier)
}

extension WireField {
    /// A token a finish issued (present when its purpose was not `none`).
    public static func token(_ keyPath: KeyPath<Root, String?> & Sendable) -> WireField {
        .optional("token", keyPath, .text, "present when tokenPurpose is not none")
    }
}
