/// Every answer the domain may give instead of a result, named as in the contract's error table.
///
/// The wire codes are assigned in one place, in the server layer.
public enum ErrorReason: String, Sendable, CaseIterable {
    /// The caller's input breaks a rule of the domain (`DomainError.input` says which input).
    case invalidParams
    case notFound, alreadyExists, forbidden, policyViolation, rateLimited, storeUnavailable
    case notActivatedLocally, alreadyActivated, biometryUnavailable, biometryFailed, biometryCancelled
    case iCloudKeychainDisabled, biometryKeyInvalidated
    case noSessionInProgress, sessionExpired
    case activationCodeInvalid, activationCodeExpired, authMethodNotAllowed, proofInvalid
    case authenticationFailed, registrationLocked, lockedByAdmin, registrationRemoved, verificationPending
    case cannotDeactivateDevice
    case tokenInvalid, tokenExpired, tokenPurposeMismatch
    case recoveryNotActivated, recoveryCodeInvalid, recoveryLocked
    case accountRecoveryNotAllowed, userSessionInvalid, invalidCredentials
    case onboardingInProgress, onboardingNotRunning, onboardingCannotActivate, otpInvalid, otpExpired
    case resendLimited, onboardingFailed
    case verificationCodeInvalid, verificationCodeExpired
    /// A passkey credential failed a Relying Party check: `data.check` names the first
    /// (a `PasskeyCheck` name: `type`, `challenge`, `origin`, `encoding`, … `signCount`).
    case passkeyInvalid
    /// The operation is no longer pending (`data.status`).
    case operationNotPending
    /// The phone signed other data than the operation's; counted on the operation (`data.remainingAttempts`).
    case operationDataMismatch
    /// This failure used up the operation's attempts: it is `failed` (`data.status`).
    case operationFailed
    /// The phone refused a QR payload (its form or its signature); nothing counts.
    case qrInvalid
    /// The phone does not know its registration's server key yet.
    case offlineUnavailable
}

/// A value in an error's `data`: never a secret.
public enum ErrorDetail: Sendable, Equatable {
    case int(Int)
    case string(String)
    case bool(Bool)
    case strings([String])
}

/// Which input of an operation breaks a rule of the domain, in the domain's own terms (the
/// server layer knows where each sits on the wire).
public enum InvalidInput: Sendable, Equatable {
    /// The PIN length bounds cross (`maxChanged`: the maximum was the value given).
    case pinCodeLengths(maxChanged: Bool)
    /// A single-factor method was allowed to add a two-factor one.
    case addOrUpdateAllowedBy(proof: AuthMethod, adds: AuthMethod)
    /// The redirect URL starts with none of the application's prefixes.
    case redirectUrl(allowedPrefixes: [String])
    /// The redirect URL holds a space or a control character (it becomes a message's link).
    case redirectUrlCharacters
    /// A recovery's keys are not `device` and exactly one two-factor method.
    case recoveryKeys
    /// An entry of an application's passkey origins (its index) that the RP id does not cover.
    case passkeyOrigin(index: Int)
    /// An entry of a user's imported passkeys (its index) that a registration would refuse.
    case importedPasskey(index: Int, member: String)
    /// A new passkey for a reset that names neither a device nor a ceremony.
    case newPasskey
    /// Creation options that offer no algorithm the simulated phone makes.
    case passkeyAlgorithms
    /// An origin the options' RP id does not cover, or none to default to.
    case browserOrigin
    /// An operation template's `name`, `title`, `message` or `data`.
    case templateText(String)
    /// An operation template's attribute (its index) that renders what `data` does not hold.
    case templateAttribute(index: Int)
    /// A parameter of an operation: missing for a placeholder, or unused (`parameters.<name>`).
    case operationParameter(name: String)
    /// An operation's filled `title`, `message` or `data` that breaks a rule.
    case operationText(String)
    /// The registration an operation is bound to, or an offline approval names: not the user's, or none to default to.
    case operationRegistration
    /// A callback's `url`.
    case callbackURL
    /// A callback's `secret`.
    case callbackSecret
    /// A delivery that cannot be tried again (`deliveryId`).
    case callbackDelivery
}

/// A member of an error's `data`, each spelled once (its wire name is the raw value).
public enum ErrorDataKey: String, Sendable, CaseIterable {
    /// Attempts left before the registration (or the operation, a code) locks or fails.
    case remainingAttempts
    /// Seconds until trying again may succeed.
    case retryAfterSeconds
    /// The seed's onboarding reason (`WDOReason`).
    case wdoReason
    /// Whether an onboarding OTP may be tried again.
    case allowOtpRetry
    /// What was not found (or what already exists).
    case kind
    /// The first Relying Party check a passkey credential failed.
    case check
    /// An operation's status; a registration's, an account recovery's state.
    case status, state
    /// The methods a registration has (and the one an answer is about).
    case activatedAuthMethods, authMethod
    /// Which device, which key role an answer is about.
    case device, keyRole
    /// A policy's violated rules.
    case violations
}

/// The seed's onboarding reasons (`WDOErrorReason`), the value of `data.wdoReason`.
public enum WDOReason: String, Sendable, CaseIterable {
    case inProgress = "wdo_activation_inProgress"
    case notRunning = "wdo_activation_notRunning"
    case cannotActivate = "wdo_activation_cannotActivate"

    /// The reason as an error's `data` member.
    public var detail: (ErrorDataKey, ErrorDetail) { (.wdoReason, .string(rawValue)) }
}

/// An answer the domain gives instead of a result.
///
/// What a transaction wrote before throwing one (an attempt counted, a process failed) is committed: a
/// domain error is an answer, not a fault.
public struct DomainError: Error, Sendable, Equatable {
    public var reason: ErrorReason
    public var message: String
    public var details: [(key: ErrorDataKey, value: ErrorDetail)]
    /// For `invalidParams`: the input at fault.
    public var input: InvalidInput?

    public init(_ reason: ErrorReason, _ message: String, _ details: [(ErrorDataKey, ErrorDetail)] = []) {
        self.reason = reason
        self.message = message
        self.details = details.map { (key: $0.0, value: $0.1) }
    }

    public static func == (lhs: DomainError, rhs: DomainError) -> Bool {
        lhs.reason == rhs.reason && lhs.message == rhs.message && lhs.details.map(\.key) == rhs.details.map(\.key)
            && lhs.details.map(\.value) == rhs.details.map(\.value) && lhs.input == rhs.input
    }

    public func detail(_ key: ErrorDataKey) -> ErrorDetail? {
        details.first { $0.key == key }?.value
    }

    // MARK: common answers

    /// The input breaks a rule; `problem` says how, without quoting the input.
    public static func invalid(_ input: InvalidInput, _ problem: String) -> DomainError {
        var error = DomainError(.invalidParams, problem)
        error.input = input
        return error
    }

    public static func notFound(_ kind: String) -> DomainError {
        DomainError(.notFound, "No such \(kind)", [(.kind, .string(kind))])
    }

    public static func rateLimited(retryAfter: Int64, _ what: String) -> DomainError {
        DomainError(
            .rateLimited, "Try again later: \(what)",
            [(.retryAfterSeconds, .int(Int(max(retryAfter, 1))))])
    }

    public static func storeUnavailable(retryAfter: Int64, _ what: String) -> DomainError {
        DomainError(
            .storeUnavailable, "The store is unavailable: \(what); nothing was written",
            [(.retryAfterSeconds, .int(Int(max(retryAfter, 1))))])
    }
}
