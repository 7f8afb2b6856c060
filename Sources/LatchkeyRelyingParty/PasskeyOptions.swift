import LatchkeyContract

/// A credential a ceremony names (`excludeCredentials`, `allowCredentials`).
public struct PasskeyDescriptor: Sendable, Equatable {
    public var id: [UInt8]
    public var transports: [String]

    public init(id: [UInt8], transports: [String] = []) {
        self.id = id
        self.transports = transports
    }
}

/// The user a new passkey is for, as the authenticator shows and keeps them.
public struct PasskeyUserEntity: Sendable, Equatable {
    /// The user handle: random bytes, never derived from an identifier.
    public var id: [UInt8]
    public var name: String
    public var displayName: String

    public init(id: [UInt8], name: String, displayName: String) {
        self.id = id
        self.name = name
        self.displayName = displayName
    }
}

/// What `navigator.credentials.create()` takes: WebAuthn's `PublicKeyCredentialCreationOptions`.
public struct CredentialCreationOptions: Sendable, Equatable {
    public var ceremonyId: String
    public var rpId: String
    public var rpName: String
    public var user: PasskeyUserEntity
    public var challenge: [UInt8]
    /// COSE algorithms, most preferred first.
    public var algorithms: [Int]
    /// Milliseconds.
    public var timeout: Int
    public var excludeCredentials: [PasskeyDescriptor]
    public var userVerification: UserVerificationPolicy

    public init(
        ceremonyId: String, rpId: String, rpName: String, user: PasskeyUserEntity, challenge: [UInt8], algorithms: [Int],
        timeout: Int, excludeCredentials: [PasskeyDescriptor], userVerification: UserVerificationPolicy
    ) {
        self.ceremonyId = ceremonyId
        self.rpId = rpId
        self.rpName = rpName
        self.user = user
        self.challenge = challenge
        self.algorithms = algorithms
        self.timeout = timeout
        self.excludeCredentials = excludeCredentials
        self.userVerification = userVerification
    }
}

/// What `navigator.credentials.get()` takes: WebAuthn's `PublicKeyCredentialRequestOptions`.
public struct CredentialRequestOptions: Sendable, Equatable {
    public var ceremonyId: String
    public var rpId: String
    public var challenge: [UInt8]
    public var timeout: Int
    public var userVerification: UserVerificationPolicy
    /// Empty for a discoverable-credential sign-in.
    public var allowCredentials: [PasskeyDescriptor]

    public init(
        ceremonyId: String, rpId: String, challenge: [UInt8], timeout: Int, userVerification: UserVerificationPolicy,
        allowCredentials: [PasskeyDescriptor]
    ) {
        self.ceremonyId = ceremonyId
        self.rpId = rpId
        self.challenge = challenge
        self.timeout = timeout
        self.userVerification = userVerification
        self.allowCredentials = allowCredentials
    }
}
