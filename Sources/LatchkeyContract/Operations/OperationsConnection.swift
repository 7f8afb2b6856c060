/// The server half's operations for approving what a phone shows: what `server/operation/*`
/// exposes on the wire and what a device (`LatchkeyDevice`) calls.
///
/// Every method throws `DomainError` for the contract's answers.
public protocol OperationsConnection {
    /// The registration's inbox: every pending operation of its user and application not bound to
    /// another registration, oldest first.
    /// - Throws: `notFound` (registration), the state answers (as a challenge checks them).
    func operationInbox(registrationId: String, caller: Caller?) throws -> OperationInbox
    /// A single-use challenge bound to one operation and this registration, with what the phone shows.
    /// - Throws: `notFound` (registration, operation), `operationNotPending`, the state answers.
    func operationChallenge(registrationId: String, operationId: String, caller: Caller?) throws -> OperationChallenge
    /// Approves with the `device` signature and a second factor over the hash the phone signed.
    /// - Throws: `noSessionInProgress`, `sessionExpired`, `notFound`, `operationNotPending`, the state answers,
    ///   `authMethodNotAllowed`, `registrationRemoved`, `operationDataMismatch`, `authenticationFailed`, `operationFailed`,
    ///   `registrationLocked`.
    func approveOperation(
        registrationId: String, challengeId: String, operationId: String, operationHash: String, signatures: FactorSignatures,
        caller: Caller?
    ) throws -> Operation
    /// Rejects with the `device` signature over `<reason>:<hash>`; counts nothing.
    /// - Throws: as `approveOperation`, but nothing counted.
    func rejectOperation(
        registrationId: String, challengeId: String, operationId: String, operationHash: String, reason: OperationRejectReason,
        signatures: FactorSignatures, caller: Caller?
    ) throws -> Operation
}

/// What a phone's operation inbox holds.
public struct OperationInbox: Sendable, Equatable {
    public var operations: [Operation]
    /// The application's operation-signing key (a phone keeps the one it learned at activation).
    public var operationSigningKey: PublicKey
    /// The `keyId` of the registration's device key, as a challenge carries it (not on the wire): a phone that holds another key is
    /// no longer this registration's device.
    public var deviceKeyId: String

    public init(operations: [Operation], operationSigningKey: PublicKey, deviceKeyId: String = "") {
        self.operations = operations
        self.operationSigningKey = operationSigningKey
        self.deviceKeyId = deviceKeyId
    }
}

/// A challenge for one operation, with what the phone shows and the keys it keeps.
public struct OperationChallenge: Sendable, Equatable {
    public var challengeId: String
    public var challenge: String
    public var expiresAt: UnixTime
    public var operation: Operation
    /// The operation's hash, for diagnosis: a phone signs the hash of what it shows, never this.
    public var operationHash: String
    public var operationSigningKey: PublicKey
    public var serverPublicKey: PublicKey
    /// What may approve the operation (its template's `allowedMethods`), so a phone refuses another method as the server would,
    /// before it reaches for a key (not on `server/operation/challenge`'s wire).
    public var allowedMethods: [OperationApproval]
    /// The `keyId` of the registration's device key (not on the wire): a phone that holds another key is no longer this
    /// registration's device.
    public var deviceKeyId: String

    public init(
        challengeId: String, challenge: String, expiresAt: UnixTime, operation: Operation, operationHash: String,
        operationSigningKey: PublicKey, serverPublicKey: PublicKey, allowedMethods: [OperationApproval], deviceKeyId: String
    ) {
        self.challengeId = challengeId
        self.challenge = challenge
        self.expiresAt = expiresAt
        self.operation = operation
        self.operationHash = operationHash
        self.operationSigningKey = operationSigningKey
        self.serverPublicKey = serverPublicKey
        self.allowedMethods = allowedMethods
        self.deviceKeyId = deviceKeyId
    }
}
