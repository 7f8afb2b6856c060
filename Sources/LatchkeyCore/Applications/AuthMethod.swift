/// An authentication method. `device` is possession only; the others add knowledge or biometry.
public enum AuthMethod: String, Sendable, CaseIterable, Codable {
    case device, pin, touchId, faceId

    /// Possession plus knowledge or biometry.
    public var isTwoFactor: Bool { self != .device }

    /// Whether the method is a biometric one.
    public var isBiometric: Bool { self == .touchId || self == .faceId }

    /// Methods in the contract's order, without duplicates.
    public static func canonical(_ methods: some Sequence<AuthMethod>) -> [AuthMethod] {
        let set = Set(methods)
        return allCases.filter(set.contains)
    }

    /// Parses a comma-separated list (the stored form); unknown names are dropped.
    static func list(_ text: String) -> [AuthMethod] {
        canonical(text.split(separator: ",").compactMap { AuthMethod(rawValue: String($0)) })
    }

    static func text(_ methods: [AuthMethod]) -> String {
        canonical(methods).map(\.rawValue).joined(separator: ",")
    }
}

/// The purposes a token may be issued for.
public enum TokenPurpose: String, Sendable, CaseIterable {
    case none, addOrUpdateRecovery, deleteRecovery
}

/// What the user presents to prove themselves: a method, and the PIN for `pin`.
public struct AuthParameter: Sendable, Equatable {
    public var method: AuthMethod
    public var pin: String?

    public init(method: AuthMethod, pin: String? = nil) {
        self.method = method
        self.pin = pin
    }
}
