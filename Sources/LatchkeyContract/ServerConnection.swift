/// The server half's operations for a device that holds its own keys: what the `server/` methods expose on the wire, and what a device
/// (`LatchkeyDevice`) calls through whatever carries its requests.
///
/// Every method throws `DomainError` for the contract's answers.
public protocol ServerConnection: OperationsConnection {
    /// Opens an activation: the request's id is the activationId.
    func prepareActivation(code: String, applicationId: String?, caller: Caller) throws -> KeyRequest
    func commitActivation(
        activationId: String, keys: KeySet, activationName: String?, tokenPurpose: TokenPurpose,
        caller: Caller?
    ) throws -> ActivationOutcome
    func challenge(registrationId: String, purpose: ChallengePurpose, caller: Caller?) throws -> Challenge
    func cancelChallenge(registrationId: String, challengeId: String, caller: Caller?) throws -> Bool
    func verify(
        registrationId: String, challengeId: String, signatures: FactorSignatures, tokenPurpose: TokenPurpose,
        caller: Caller?
    ) throws -> Verification
    func addAuthMethod(
        registrationId: String, challengeId: String, signatures: FactorSignatures, method: AuthMethod,
        key: KeyWithProof, caller: Caller?
    ) throws -> [AuthMethod]
    func removeAuthMethod(
        registrationId: String, challengeId: String, signatures: FactorSignatures, method: AuthMethod,
        caller: Caller?
    ) throws -> [AuthMethod]
    func registrationStatus(registrationId: String) throws -> RegistrationStatus
    func removeRegistration(registrationId: String, challengeId: String, signatures: FactorSignatures, caller: Caller?) throws
    /// Uses a token: the grant it gives authorises one `setRecovery` or `deleteRecovery` (of the
    /// token's purpose) for 300 s.
    func redeemToken(registrationId: String, token: String, purpose: TokenPurpose, caller: Caller?) throws -> TokenGrant
    func setRecovery(
        registrationId: String, grant: TokenGrant, key: KeyWithProof, tokenPurpose: TokenPurpose,
        caller: Caller?
    ) throws -> RecoveryMethodsOutcome
    func deleteRecovery(registrationId: String, grant: TokenGrant, tokenPurpose: TokenPurpose, caller: Caller?) throws -> RecoveryMethodsOutcome
    /// Opens a recovery onto new keys: the request's id is the challengeId.
    func recoveryChallenge(registrationId: String, caller: Caller) throws -> KeyRequest
    func recover(
        registrationId: String, challengeId: String, recoverySignature: Signature, keys: KeySet,
        tokenPurpose: TokenPurpose, caller: Caller?
    ) throws -> ActivationOutcome
    func startOnboarding(credentials: OnboardingCredentials, applicationId: String?, caller: Caller) throws -> String
    func onboardingStatus(processId: String) throws -> OnboardingStatus
    func resendOnboardingOtp(processId: String) throws
    func cancelOnboarding(processId: String, caller: Caller?) throws
    /// Checks the OTP and opens an activation: the request's id is the activationId.
    func activateOnboarding(processId: String, otp: String, caller: Caller?) throws -> KeyRequest
}

/// Who asks: a simulated device of this process, or an app installation outside it.
///
/// Limits kept per asker (wrong activation codes, onboarding processes) are kept per caller.
public enum Caller: Sendable, Equatable {
    case device(String)
    case installation(String)

    /// A stable key for limits and bindings.
    public var key: String {
        switch self {
        case .device(let id): return "device:" + id
        case .installation(let id): return "installation:" + id
        }
    }

    /// The caller a stored `key` names (nil for anything else).
    public init?(key: String) {
        if key.hasPrefix("device:") {
            self = .device(String(key.dropFirst(7)))
        } else if key.hasPrefix("installation:") {
            self = .installation(String(key.dropFirst(13)))
        } else {
            return nil
        }
    }

    /// How a record names an optional caller: its key, or empty when the server half was called
    /// for no one in particular (a `server/` call that names no installation).
    public static func storedKey(_ caller: Caller?) -> String {
        switch caller {
        case .some(let caller): caller.key
        case .none: ""
        }
    }

    public var deviceId: String? { if case .device(let id) = self { id } else { nil } }
    public var installationId: String? { if case .installation(let id) = self { id } else { nil } }
}

/// A public key handed to the server, with its proof of possession: the key's own signature
/// over the payload of the operation that registers it (a missing one fails as a wrong one does).
public struct KeyWithProof: Sendable, Equatable {
    public var publicKey: PublicKey
    public var proof: Signature?

    public init(publicKey: PublicKey, proof: Signature?) {
        self.publicKey = publicKey
        self.proof = proof
    }
}

/// The keys of an activation or a recovery: the device key and the two-factor keys given.
public struct KeySet: Sendable, Equatable {
    public var device: KeyWithProof
    public var factors: [AuthMethod: KeyWithProof]

    public init(device: KeyWithProof, factors: [AuthMethod: KeyWithProof] = [:]) {
        self.device = device
        self.factors = factors
    }

    /// The methods the keys activate: `device` and the factors, in the contract's order.
    public var methods: [AuthMethod] { AuthMethod.canonical([.device] + factors.keys) }
}

/// The signatures a verification carries: `device`, and at most one second factor.
public struct FactorSignatures: Sendable, Equatable {
    public var device: Signature
    public var factor: AuthMethod?
    public var factorSignature: Signature?

    public init(device: Signature, factor: (method: AuthMethod, signature: Signature)? = nil) {
        self.device = device
        self.factor = factor?.method
        factorSignature = factor?.signature
    }
}

/// What a challenge is for.
public enum ChallengePurpose: String, Sendable, CaseIterable {
    /// An authentication (it picks up a pending pushed authentication); also serves adding and
    /// removing a method and removing the registration.
    case authenticate
    /// Removing the registration: issued in any state but removed, picks up nothing.
    case removeRegistration
    /// Adding, updating or removing a method: picks up nothing and answers the methods the
    /// registration may add or update.
    case addAuthMethod
}

/// What new keys are to be made for, in an activation (opened by a code or an onboarding OTP) or
/// a recovery: the challenge their proofs sign, until when, for which methods, under which PIN rules.
public struct KeyRequest: Sendable, Equatable {
    /// The activationId, or the recovery's challengeId.
    public var id: String
    public var challenge: String
    public var expiresAt: UnixTime
    /// The application's enabled methods (for a recovery, its two-factor ones).
    public var authMethodsForActivation: [AuthMethod]
    public var pinRules: PinRules
    /// The application's operation-signing key, which the phone keeps from its activation (nil for a recovery).
    public var operationSigningKey: PublicKey?

    public init(
        id: String, challenge: String, expiresAt: UnixTime, authMethodsForActivation: [AuthMethod], pinRules: PinRules,
        operationSigningKey: PublicKey? = nil
    ) {
        self.id = id
        self.challenge = challenge
        self.expiresAt = expiresAt
        self.authMethodsForActivation = authMethodsForActivation
        self.pinRules = pinRules
        self.operationSigningKey = operationSigningKey
    }
}

/// What a finished activation (or recovery) answers.
public struct ActivationOutcome: Sendable, Equatable {
    public var registrationId: String
    public var activatedAuthMethods: [AuthMethod]
    public var token: String?
    /// The registration's server key (offline approval's key agreement).
    public var serverPublicKey: PublicKey?

    public init(registrationId: String, activatedAuthMethods: [AuthMethod], token: String?, serverPublicKey: PublicKey? = nil) {
        self.registrationId = registrationId
        self.activatedAuthMethods = activatedAuthMethods
        self.token = token
        self.serverPublicKey = serverPublicKey
    }
}

/// Where a registration's attempts stand, and the pushed authentication a challenge picked up:
/// what a device shows with a challenge.
public struct ChallengeStanding: Sendable, Equatable {
    public var lastAttempt: UnixTime?
    public var totalAttemptsPIN: Int
    public var remainingAttemptsPIN: Int
    public var authenticationId: String?
    public var contextTitle: String?
    public var contextContent: String?
    public var contextMIME: String?

    public init(
        lastAttempt: UnixTime?, totalAttemptsPIN: Int, remainingAttemptsPIN: Int, authenticationId: String?,
        contextTitle: String?, contextContent: String?, contextMIME: String?
    ) {
        self.lastAttempt = lastAttempt
        self.totalAttemptsPIN = totalAttemptsPIN
        self.remainingAttemptsPIN = remainingAttemptsPIN
        self.authenticationId = authenticationId
        self.contextTitle = contextTitle
        self.contextContent = contextContent
        self.contextMIME = contextMIME
    }
}

/// A challenge and what a device shows with it.
public struct Challenge: Sendable, Equatable {
    public var challengeId: String
    public var challenge: String
    public var expiresAt: UnixTime
    public var authenticationMethods: [AuthMethod]
    public var standing: ChallengeStanding
    /// `PushContext.hash` of the picked-up context, or "".
    public var contextHash: String
    public var pinRules: PinRules
    /// For `addAuthMethod` challenges: what the activated methods may add or update.
    public var allowedAuthMethodsToActivate: [AuthMethod]?
    /// The `keyId` of the registration's device key: a device that holds another key is no
    /// longer this registration's device (a recovery moved it elsewhere).
    public var deviceKeyId: String
    /// The application's operation-signing key.
    public var operationSigningKey: PublicKey?
    /// The registration's server key (made now for a registration made before there were any).
    public var serverPublicKey: PublicKey?

    public init(
        challengeId: String, challenge: String, expiresAt: UnixTime, authenticationMethods: [AuthMethod],
        standing: ChallengeStanding, contextHash: String, pinRules: PinRules, allowedAuthMethodsToActivate: [AuthMethod]?,
        deviceKeyId: String, operationSigningKey: PublicKey? = nil, serverPublicKey: PublicKey? = nil
    ) {
        self.operationSigningKey = operationSigningKey
        self.serverPublicKey = serverPublicKey
        self.challengeId = challengeId
        self.challenge = challenge
        self.expiresAt = expiresAt
        self.authenticationMethods = authenticationMethods
        self.standing = standing
        self.contextHash = contextHash
        self.pinRules = pinRules
        self.allowedAuthMethodsToActivate = allowedAuthMethodsToActivate
        self.deviceKeyId = deviceKeyId
    }
}

/// What a successful verification answers.
public struct Verification: Sendable, Equatable {
    public var contextContent: String?
    public var token: String?

    public init(contextContent: String?, token: String?) {
        self.contextContent = contextContent
        self.token = token
    }
}

/// What a device shows without authenticating.
public struct RegistrationStatus: Sendable, Equatable {
    public var registrationId: String
    public var state: RegistrationState
    public var authMethods: [AuthMethod]
    public var remainingAttemptsPIN: Int
    public var totalAttemptsPIN: Int
    public var recoveryMethods: [String]
    /// The `keyId` of the registration's device key (not on the wire): a phone that holds another key is no longer this
    /// registration's device.
    public var deviceKeyId: String
    /// Whether wrong recovery codes locked its recovery (not on the wire).
    public var recoveryLocked: Bool

    public init(
        registrationId: String, state: RegistrationState, authMethods: [AuthMethod], remainingAttemptsPIN: Int,
        totalAttemptsPIN: Int, recoveryMethods: [String], deviceKeyId: String, recoveryLocked: Bool
    ) {
        self.registrationId = registrationId
        self.state = state
        self.authMethods = authMethods
        self.remainingAttemptsPIN = remainingAttemptsPIN
        self.totalAttemptsPIN = totalAttemptsPIN
        self.recoveryMethods = recoveryMethods
        self.deviceKeyId = deviceKeyId
        self.recoveryLocked = recoveryLocked
    }
}

/// A used token's authorisation of one recovery change.
public struct TokenGrant: Sendable, Equatable {
    public var grantId: String
    /// A secret derived one way from the token (not the token: the device keeps it while the
    /// change is in hand, and a token is never kept), which the recovery key's proof signs as its
    /// challenge.
    public var secret: String
    public var expiresAt: UnixTime

    public init(grantId: String, secret: String, expiresAt: UnixTime) {
        self.grantId = grantId
        self.secret = secret
        self.expiresAt = expiresAt
    }
}

/// What a recovery add/update or delete answers.
public struct RecoveryMethodsOutcome: Sendable, Equatable {
    public var recoveryMethods: [String]
    public var token: String?

    public init(recoveryMethods: [String], token: String?) {
        self.recoveryMethods = recoveryMethods
        self.token = token
    }
}
