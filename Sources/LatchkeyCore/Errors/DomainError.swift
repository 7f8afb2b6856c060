/// The contract's error reasons that the domain can answer with. The wire codes are assigned
/// in one place, in the server layer.
public enum ErrorReason: String, Sendable, CaseIterable {
    case invalidParams
    case notFound, alreadyExists, forbidden, policyViolation, rateLimited
    case notActivatedLocally, alreadyActivated, biometryUnavailable, biometryFailed, biometryCancelled
    case iCloudKeychainDisabled
    case noSessionInProgress, sessionExpired
    case activationCodeInvalid, activationCodeExpired, authMethodNotAllowed
    case authenticationFailed, registrationLocked, lockedByAdmin, registrationRemoved, verificationPending
    case cannotDeactivateDevice
    case tokenInvalid, tokenExpired, tokenPurposeMismatch
    case recoveryNotActivated, recoveryCodeInvalid, recoveryLocked
    case accountRecoveryNotAllowed, userSessionInvalid, invalidCredentials
    case onboardingInProgress, onboardingNotRunning, onboardingCannotActivate, otpInvalid, otpExpired
    case resendLimited, onboardingFailed
    case verificationCodeInvalid, verificationCodeExpired
}

/// A value in an error's `data`: never a secret.
public enum ErrorDetail: Sendable, Equatable {
    case int(Int)
    case string(String)
    case bool(Bool)
    case strings([String])
    /// `[{path, message}]`, for `invalidParams`.
    case fieldErrors([FieldError])
}

/// One offending field: a dotted path (`authParameter.pin`) and what is wrong with it.
public struct FieldError: Sendable, Equatable {
    public var path: String
    public var message: String
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }
}

/// An answer the domain gives instead of a result. What a transaction wrote before throwing one
/// (an attempt counted, a process failed) is committed: a domain error is an answer, not a fault.
public struct DomainError: Error, Sendable, Equatable {
    public var reason: ErrorReason
    public var message: String
    public var details: [(key: String, value: ErrorDetail)]

    public init(_ reason: ErrorReason, _ message: String, _ details: [(String, ErrorDetail)] = []) {
        self.reason = reason
        self.message = message
        self.details = details.map { (key: $0.0, value: $0.1) }
    }

    public static func == (lhs: DomainError, rhs: DomainError) -> Bool {
        lhs.reason == rhs.reason && lhs.message == rhs.message && lhs.details.map(\.key) == rhs.details.map(\.key)
            && lhs.details.map(\.value) == rhs.details.map(\.value)
    }

    public func detail(_ key: String) -> ErrorDetail? {
        details.first { $0.key == key }?.value
    }

    // MARK: common answers

    public static func invalidParam(_ path: String, _ message: String) -> DomainError {
        DomainError(.invalidParams, "Invalid params: \(path) \(message)",
                    [("errors", .fieldErrors([FieldError(path: path, message: message)]))])
    }

    public static func notFound(_ kind: String) -> DomainError {
        DomainError(.notFound, "No such \(kind)", [("kind", .string(kind))])
    }

    public static func rateLimited(retryAfter: Int64, _ what: String) -> DomainError {
        DomainError(.rateLimited, "Try again later: \(what)",
                    [("retryAfterSeconds", .int(Int(max(retryAfter, 1))))])
    }
}
