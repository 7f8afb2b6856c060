import LatchkeyContract

/// What `authentication/start` tells the app.
public struct AuthenticationChallengeInfo: Sendable, Equatable {
    public var authenticationMethods: [AuthMethod]
    /// The method of the device's last successful authentication if still activated, else its
    /// strongest activated one (faceId, touchId, pin, device).
    public var authenticationMethod: AuthMethod
    public var standing: ChallengeStanding
    public var pinCodeType: PinCodeType
    public var pinCodeLengthMin: Int
    public var pinCodeLengthMax: Int
}

/// What `authentication/finish` answers: the server's verification as it is.
public typealias AuthenticationOutcome = Verification

/// What `authMethod/startAddOrUpdate` tells the app: what a started authentication does (no
/// pushed authentication is picked up), and the methods it may add or update.
public struct AddOrUpdateOffer: Sendable, Equatable {
    public var allowedAuthMethodsToActivate: [AuthMethod]
    public var challenge: AuthenticationChallengeInfo
}

extension Device {
    /// Asks for a challenge for the device's registration and keeps it as the operation in hand.
    /// - Throws: `notActivatedLocally`, `registrationRemoved` (the keys moved elsewhere), the server's answers.
    func openChallenge(_ purpose: ChallengePurpose, kind: PendingOperation.Kind) throws -> (Challenge, PendingOperation) {
        let registrationId = try heldRegistration()
        let challenge = try server.challenge(registrationId: registrationId, purpose: purpose, caller: caller)
        try requireThisDevice(keyId: challenge.deviceKeyId)
        try learn(operationSigningKey: challenge.operationSigningKey)
        try learn(serverPublicKey: challenge.serverPublicKey)
        var operation = PendingOperation(kind: kind, id: challenge.challengeId, challenge: challenge.challenge, expiresAt: challenge.expiresAt)
        operation.registrationId = registrationId
        operation.contextHash = challenge.contextHash
        operation.methods = challenge.allowedAuthMethodsToActivate ?? []
        // The registration's application's PIN policy, which a new PIN (an add or update) must keep.
        operation.pinRules = challenge.pinRules
        try storage.setPendingOperation(operation)
        return (challenge, operation)
    }

    /// What the app shows with a challenge: the methods this device can use, the one to offer.
    func prompt(_ challenge: Challenge) throws -> AuthenticationChallengeInfo {
        let methods = challenge.authenticationMethods.filter(profile.supports)
        // A method whose biometric key a change of enrolment destroyed is never proposed.
        let usable = try methods.filter { try !isInvalidated($0) }
        let last = try storage.string(.lastAuthenticationMethod).flatMap(AuthMethod.init(rawValue:))
        let preferred = last.flatMap { usable.contains($0) ? $0 : nil } ?? AuthMethod.strongestFirst.first(where: usable.contains) ?? .device
        return AuthenticationChallengeInfo(
            authenticationMethods: methods, authenticationMethod: preferred, standing: challenge.standing, pinCodeType: challenge.pinRules.type,
            pinCodeLengthMin: challenge.pinRules.minLength,
            pinCodeLengthMax: challenge.pinRules.maxLength)
    }

    /// Opens an authentication; the server picks up a pushed authentication if one is pending.
    public func startAuthentication() throws -> AuthenticationChallengeInfo {
        try prompt(try openChallenge(.authenticate, kind: .authentication).0)
    }

    /// Answers the challenge with `parameter`; the server verifies and counts.
    /// - Throws: `noSessionInProgress`, `sessionExpired`, `authMethodNotAllowed`, the biometric
    ///   errors, `biometryKeyInvalidated` (the method is deactivated, the session stays), and the
    ///   server's `authenticationFailed`, `registrationLocked`, state answers.
    public func finishAuthentication(_ parameter: AuthParameter, tokenPurpose: TokenPurpose) throws -> AuthenticationOutcome {
        let operation = try pending(.authentication)
        let registrationId = try heldRegistration()
        guard try activatedMethods().contains(parameter.method) else {
            try refuseFactor(
                DomainError(.authMethodNotAllowed, "\(parameter.method.rawValue) is not activated for this registration"),
                registrationId: registrationId)
        }
        if try isInvalidated(parameter.method) { try refuseInvalidated(parameter.method, keeping: operation) }
        let payload = SignedPayload(
            .authenticate, subject: registrationId, challenge: operation.challenge, role: .device,
            contextHash: operation.contextHash)
        let signatures = try signatures(payload, parameter)
        let verified = try usingUp(operation) {
            try server.verify(
                registrationId: registrationId, challengeId: operation.id, signatures: signatures,
                tokenPurpose: tokenPurpose, caller: caller)
        }
        try storage.set(.lastAuthenticationMethod, parameter.method.rawValue)
        return verified
    }

    /// The answers of a factor check that counted: the challenge is used up.
    static let countedAnswers: Set<ErrorReason> = [.authenticationFailed, .registrationLocked, .recoveryCodeInvalid, .recoveryLocked]

    /// Runs a server call that answers a challenge: the operation in hand is used up once the
    /// server reached the factor check (a success, or a counted failure).
    func usingUp<T>(_ operation: PendingOperation, _ call: () throws -> T) throws -> T {
        do {
            let value = try call()
            try storage.setPendingOperation(nil)
            return value
        } catch let answer as DomainError where Self.countedAnswers.contains(answer.reason) {
            try storage.setPendingOperation(nil)
            throw answer
        }
    }

    /// Cancels the operation in hand; a pushed authentication it picked up is rejected on the server.
    /// - Returns: whether there was one.
    public func cancelSession() throws -> Bool {
        guard let operation = try storage.pendingOperation() else { return false }
        try storage.setPendingOperation(nil)
        if operation.kind == .authentication, let registrationId = operation.registrationId {
            // The device's session ends whatever the server answers (it may have expired there).
            _ = try? server.cancelChallenge(registrationId: registrationId, challengeId: operation.id, caller: caller)
        }
        return true
    }
}
