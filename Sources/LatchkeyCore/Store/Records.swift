import LatchkeyContract

// The rows of the server's tables: one record type a table, in the order the migrations create
// them. A record's stored properties are its table's columns, in the table's column order (each
// record reads and writes its row in that order: Records+Rows.swift), so this file reads side by
// side with LatchkeyStore/Migrations.swift and LatchkeyPostgres/PostgresMigrations.swift.
// What the domain does with a record (its lifetimes, limits and derived values) is an extension
// beside the code that uses it.

struct ServerConfigRecord: StoredRecord {
    static let table = "server_config"
    var id: String
    var gracePeriodSeconds: Int64
    var insecureWindowSeconds: Int64
    var sessionLifetimeSeconds: Int64
}

/// The stored form of an audit event.
public struct AuditRecord: StoredRecord {
    public static let table = "audit_event"
    public var id: String
    public var at: Int64
    public var type: String
    public var userId: String?
    public var registrationId: String?
    public var deviceId: String?
    public var detail: String?
    public var activationName: String?
    public var installationId: String?
    public var operationId: String?
    public var dataMismatch: Bool?
}

/// One counted event for a rate limit (a wrong activation code, a failed login, a send).
struct RateEventRecord: StoredRecord {
    static let table = "rate_event"
    var id: String
    var scope: String
    /// What is limited: a device id, or a keyed hash of an identifier.
    var subject: String
    var at: Int64
}

/// The stored form of an application.
struct ApplicationRecord: StoredRecord {
    static let table = "application"
    var id: String
    var activationCodeLength: Int
    var activationCodeType: String
    var activationCodeTtlSeconds: Int64
    var pinCodeType: String
    var pinCodeLengthMin: Int
    var pinCodeLengthMax: Int
    var maxFailedAttempts: Int
    var authMethods: String
    /// Who may add what, written `pin:pin,touchId,faceId;faceId:touchId`.
    var addOrUpdateAllowedBy: String
    var tokenTtlSeconds: Int64
    /// One prefix a line.
    var redirectUrlPrefixes: String
    // The Relying Party (null in rows written before passkeys: the defaults).
    var passkeyRpId: String?
    var passkeyRpName: String?
    /// One origin a line.
    var passkeyOrigins: String?
    var passkeyUserVerification: String?
}

/// A user on the server.
///
/// The password is kept only as an scrypt hash.
struct UserRecord: StoredRecord {
    static let table = "user"
    var id: String
    var email: String?
    /// The email lowercased, for case-insensitive lookups.
    var emailKey: String?
    var phoneNumber: String?
    var passwordHash: [UInt8]?
    var passwordSalt: [UInt8]?
    var birthDate: String?
    /// Operator-supplied attributes, as the caller's JSON text (opaque to the domain).
    var attributes: String?
    var createdAt: Int64
    /// A login name, unique and compared exactly (nil: none).
    var loginName: String?
    /// The WebAuthn user handle: random bytes made on the user's first passkey ceremony (or given
    /// when an operator imports passkeys), never derived from an identifier.
    var passkeyUserHandle: [UInt8]?
}

/// A passkey registered for a user: a WebAuthn credential's public key and what its ceremonies reported.
///
/// `id` is the credential id (unpadded base64url), unique across users. Rows written before passkeys
/// were verified have no key: they sign nobody in.
struct PasskeyRecord: StoredRecord {
    static let table = "passkey"
    var id: String
    var userId: String
    var friendlyName: String
    var createdAt: Int64
    /// The COSE public key.
    var publicKey: [UInt8]?
    /// Its COSE algorithm (-7, -8, -257).
    var algorithm: Int64?
    var signCount: Int64
    var backupEligible: Bool
    var backedUp: Bool
    /// One transport a line.
    var transports: String
    /// The authenticator's AAGUID as a UUID string.
    var aaguid: String?
    var lastUsedAt: Int64?
    /// The RP id it was registered under (an imported one: the `default` application's).
    ///
    /// It signs in through applications of that RP id only. Nil for one the release before registered (it kept none; see
    /// `belongs(to:)`).
    var rpId: String?
    /// Whether `backupEligible` is what the authenticator reported (an imported passkey given none
    /// learns it at its first successful sign-in); an assertion's BE must then equal it.
    var backupEligibleKnown: Bool
}

extension PasskeyRecord {
    /// Whether the passkey belongs to `rpId`: it was registered under it, or under an RP id the store never learnt.
    ///
    /// The release before kept no RP id, so a passkey it registered is offered to every application's RP id until its first
    /// successful sign-in, which proves its RP id (the authenticator signs that RP id's hash) and binds it there.
    func belongs(to rpId: String) -> Bool {
        self.rpId.map { $0.isSameId(as: rpId) } ?? true
    }
}

/// A passkey ceremony: the challenge of one `create` or `get`, bound to its kind, its application and (for creation, or a sign-in that named someone)
/// its user.
///
/// Deleted when used.
struct PasskeyCeremonyRecord: StoredRecord {
    static let table = "passkey_ceremony"
    /// The keyed hash of the ceremonyId (`Latchkey.ceremonyKey`): the id itself is never stored.
    var id: String
    /// `create`, `get`, `reset` or `operation`.
    var kind: String
    var applicationId: String
    var userId: String?
    /// Whether the request options named an identifier (a sign-in then accepts only that user's passkeys).
    var named: Bool
    var challenge: [UInt8]
    var expiresAt: Int64
    var createdAt: Int64
    /// What opened a creation ceremony (the session, or the verification code, it dies with).
    ///
    /// The id of the session that asked `passkey/creationOptions`, or of the verification code
    /// `reset/passkeyCreationOptions` checked.
    var openedBy: String?
    /// For an operation's approval by passkey: the operation, and the nonce its challenge hashes.
    var operationId: String?
    var nonce: String?
}

/// An activation code, stored as a keyed hash.
///
/// Bound to the caller of the activation it opened (`boundDeviceId` holds its `Caller.key`), consumed
/// when that activation gets its keys.
struct ActivationCodeRecord: StoredRecord {
    static let table = "activation_code"
    /// A random id (the code itself is only in `codeHash`).
    var id: String
    var codeHash: String
    var userId: String
    var applicationId: String
    var expiresAt: Int64
    var boundDeviceId: String?
    var consumed: Bool
    var createdAt: Int64
}

/// A registration: one user's activation on one device, held as factor public keys.
struct RegistrationRecord: StoredRecord {
    static let table = "registration"
    var id: String
    var userId: String
    var applicationId: String
    /// The device whose keys the registration is bound to.
    var deviceId: String
    var state: String
    var authMethods: String
    var failedAttempts: Int
    var lastAttempt: Int64?
    var possessionPublicKey: [UInt8]
    var pinPublicKey: [UInt8]?
    var touchIdPublicKey: [UInt8]?
    var faceIdPublicKey: [UInt8]?
    var recoveryPublicKey: [UInt8]?
    var recoveryFailedAttempts: Int
    /// Bumped whenever the keys are replaced (recovery); tokens of older generations die.
    var keyGeneration: Int
    /// The server's signature counter, covered by every device signature.
    var signCounter: Int64
    var createdAt: Int64
    /// The activation's name (the seed's `activationName`; the device's name by default).
    var name: String?
}

/// An authentication the server pushed to a registration, with the context the user approves.
struct PushedAuthenticationRecord: StoredRecord {
    static let table = "pushed_authentication"
    var id: String
    var registrationId: String
    var contextTitle: String?
    var contextContent: String?
    var contextMIME: String?
    var status: String
    var expiresAt: Int64
    var decidedAt: Int64?
    var createdAt: Int64
}

/// A purpose-bound one-time token, stored only as its keyed hash (`Latchkey.secretHash`).
struct TokenRecord: StoredRecord {
    static let table = "token"
    /// The hash of the token.
    var id: String
    var registrationId: String
    var purpose: String
    var keyGeneration: Int
    var expiresAt: Int64
    var used: Bool
    var createdAt: Int64
}

/// An onboarding process started by one device or app installation (`deviceId` names it): the identity it matched (if any), its OTP as a keyed
/// hash, and its counters.
struct OnboardingProcessRecord: StoredRecord {
    static let table = "onboarding_process"
    var id: String
    var deviceId: String
    /// The matched user; nil when the credentials matched nobody (every OTP is then wrong).
    var userId: String?
    var applicationId: String
    var channel: String?
    var address: String?
    var otpHash: String?
    var otpExpiresAt: Int64?
    var lastSentAt: Int64?
    var wrongOtps: Int
    var status: String
    var canRestoreSession: Bool
    /// The process (instance) that started it; without `canRestoreSession` it lives only there.
    var instance: String
    /// Set once the OTP was accepted (activation may proceed).
    var otpAccepted: Bool
    var registrationId: String?
    /// Cancelled or replaced processes are closed.
    var closed: Bool
    var createdAt: Int64
}

/// The stored account-recovery state of one user.
struct AccountRecoveryRecord: StoredRecord {
    static let table = "account_recovery"
    /// The user id.
    var id: String
    /// The state, kept as its number (a row holding another number does not read).
    var state: AccountRecoveryState
    var reason: Int
    var startTime: Int64
    var endTime: Int64?
}

/// A signed-in session, stored only as the hash of its id.
struct UserSessionRecord: StoredRecord {
    static let table = "user_session"
    var id: String
    var userId: String
    var createdAt: Int64
    var expiresAt: Int64
}

/// A verification code, stored as a keyed hash.
///
/// One per identifier at a time.
struct ResetCodeRecord: StoredRecord {
    static let table = "reset_code"
    var id: String
    /// The keyed hash of the identifier it was requested for.
    var subject: String
    var userId: String
    var kind: String
    var codeHash: String
    var expiresAt: Int64
    var wrongTries: Int
    var consumed: Bool
    var createdAt: Int64
    /// The application it was asked for (nil: `default`): a passkey a reset makes on the simulated
    /// phone takes its RP id.
    var applicationId: String?
}

/// An activation opened by an activation code or an onboarding OTP, waiting for its keys:
/// single-use, valid 300 s.
struct ActivationRecord: StoredRecord {
    static let table = "activation"
    /// The keyed hash of the activationId, a version-4 UUID (`Latchkey.activationKey`): the id itself is never stored.
    var id: String
    var codeId: String?
    var processId: String?
    /// `Caller.key` of who opened it.
    var caller: String
    var challenge: String
    var expiresAt: Int64
    var createdAt: Int64
}

/// A challenge the server issued for one registration, or a grant a used token gave: single-use, valid 300 s.
///
/// Several may be outstanding; a new one voids none.
struct ChallengeRecord: StoredRecord {
    static let table = "challenge"
    /// The challengeId (or grantId): a version-4 UUID.
    var id: String
    var registrationId: String
    /// A `ChallengePurpose`, `recover`, or for a grant the token's purpose.
    var purpose: String
    /// The challenge as given (unpadded base64url of 32 random bytes); for a grant, the keyed hash
    /// of the grant's secret (itself the keyed hash of the token).
    var challenge: String
    /// `PushContext.hash` of the pushed authentication picked up, or "".
    var contextHash: String
    var pushedAuthenticationId: String?
    /// For a grant: when the token that gave it would have expired (tokens it yields live no longer).
    var tokenExpiresAt: Int64?
    var expiresAt: Int64
    var createdAt: Int64
    /// `Caller.key` of whom it was issued to, when it names one (a recovery's installation).
    var caller: String?
    /// For an operation's approval or rejection: the operation it was issued for.
    var operationId: String?
}
