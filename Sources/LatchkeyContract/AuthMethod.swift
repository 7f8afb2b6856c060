/// An authentication method.
///
/// `device` is possession only; the others add knowledge or biometry.
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
    public static func list(_ text: String) -> [AuthMethod] {
        canonical(text.split(separator: ",").compactMap { AuthMethod(rawValue: String($0)) })
    }

    /// The comma-separated stored form.
    public static func text(_ methods: [AuthMethod]) -> String {
        canonical(methods).map(\.rawValue).joined(separator: ",")
    }

    /// The strongest first: the order a device prefers when it has no last-used method.
    public static let strongestFirst: [AuthMethod] = [.faceId, .touchId, .pin, .device]
}

/// The purposes a token may be issued for.
public enum TokenPurpose: String, Sendable, CaseIterable {
    case none, addOrUpdateRecovery, deleteRecovery
}

/// Which characters a PIN may have.
public enum PinCodeType: String, Sendable, CaseIterable { case numeric, alphanumeric }

/// An application's PIN rules, as a device needs them to ask for a PIN.
public struct PinRules: Sendable, Equatable {
    public var type: PinCodeType
    public var minLength: Int
    public var maxLength: Int

    public init(type: PinCodeType, minLength: Int, maxLength: Int) {
        self.type = type
        self.minLength = minLength
        self.maxLength = maxLength
    }
}

/// A registration's state on the server.
public enum RegistrationState: String, Sendable, CaseIterable {
    case active, locked, lockedByAdmin, verificationPending, removed

    /// What a start or a finish answers on a registration in this state (nil: it is active).
    ///
    /// The Rules check the states in the order `registrationRemoved`, `lockedByAdmin`, `registrationLocked`,
    /// `verificationPending`; a registration is in one.
    public var refusal: DomainError? {
        switch self {
        case .active: return nil
        case .removed: return DomainError(.registrationRemoved, "The registration was removed")
        case .lockedByAdmin: return DomainError(.lockedByAdmin, "The registration was locked by an operator")
        case .locked:
            return DomainError(
                .registrationLocked, "The registration is locked after too many failed attempts", [(.remainingAttempts, .int(0))])
        case .verificationPending: return DomainError(.verificationPending, "The registration waits for identity verification")
        }
    }
}

/// Where an onboarding process stands.
public enum OnboardingStatus: String, Sendable, CaseIterable {
    case activationInProgress, verificationInProgress, failed, finished
}

/// Identity given to start onboarding: any of these identifiers, with `birthDate` optionally
/// (required with `userId`); every one given must match the same user.
public struct OnboardingCredentials: Sendable, Equatable {
    public var email: String?
    public var phoneNumber: String?
    public var loginName: String?
    public var userId: String?
    public var birthDate: String?

    public init(
        email: String? = nil, phoneNumber: String? = nil, loginName: String? = nil, userId: String? = nil,
        birthDate: String? = nil
    ) {
        self.email = email
        self.phoneNumber = phoneNumber
        self.loginName = loginName
        self.userId = userId
        self.birthDate = birthDate
    }
}
