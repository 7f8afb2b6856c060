/// What `authentication/start` tells the app.
public struct AuthenticationChallengeInfo: Sendable, Equatable {
    public var authenticationMethods: [AuthMethod]
    /// The method of the device's last successful authentication if still activated, else its
    /// strongest activated one (faceId, touchId, pin, device).
    public var authenticationMethod: AuthMethod
    public var lastAttempt: UnixTime?
    public var totalAttemptsPIN: Int
    public var remainingAttemptsPIN: Int
    public var authenticationId: String?
    public var contextTitle: String?
    public var contextContent: String?
    public var contextMIME: String?
    public var pinCodeType: PinCodeType
    public var pinCodeLengthMin: Int
    public var pinCodeLengthMax: Int
}

/// What `authentication/finish` answers.
public struct AuthenticationOutcome: Sendable, Equatable {
    public var contextContent: String?
    public var token: String?
}

extension Latchkey {
    /// Opens an authentication session, picking up a pushed authentication if one is pending.
    /// - Throws: `notFound`, `notActivatedLocally`, the state errors.
    public func startAuthentication(deviceId: String) throws -> AuthenticationChallengeInfo {
        try transact { tx, _ in
            let (device, registration) = try deviceRegistration(tx, deviceId: deviceId)
            try requireActive(registration)
            let app = try application(tx, registration.applicationId)
            let pushed = try pendingPushedAuthentication(tx, registrationId: registration.id)
            try startSession(tx, deviceId: deviceId, kind: .authentication, registration: registration,
                             pushedAuthenticationId: pushed?.id)
            return try challengeInfo(tx, device, registration, app, pushed: pushed)
        }
    }

    /// What a started authentication tells the app (`pushed`: the pushed authentication picked up).
    func challengeInfo(_ tx: StoreTransaction, _ device: DeviceRecord, _ registration: RegistrationRecord, _ app: ApplicationConfig,
                       pushed: PushedAuthenticationRecord?) throws -> AuthenticationChallengeInfo {
        let methods = registration.methods.filter(device.supports)
        let last = try DeviceKeychain(tx: tx, deviceId: device.id).string(.lastAuthenticationMethod).flatMap(AuthMethod.init(rawValue:))
        let preferred = last.flatMap { methods.contains($0) ? $0 : nil }
            ?? [AuthMethod.faceId, .touchId, .pin].first(where: methods.contains) ?? .device
        return AuthenticationChallengeInfo(
            authenticationMethods: methods, authenticationMethod: preferred, lastAttempt: registration.lastAttempt,
            totalAttemptsPIN: app.maxFailedAttempts, remainingAttemptsPIN: max(app.maxFailedAttempts - registration.failedAttempts, 0),
            authenticationId: pushed?.id, contextTitle: pushed?.contextTitle, contextContent: pushed?.contextContent,
            contextMIME: pushed?.contextMIME, pinCodeType: app.pinCodeType, pinCodeLengthMin: app.pinCodeLengthMin,
            pinCodeLengthMax: app.pinCodeLengthMax)
    }

    /// Answers the challenge with `parameter`; the server verifies and counts.
    /// - Throws: `noSessionInProgress`, `sessionExpired`, the state errors, `authMethodNotAllowed`,
    ///   the biometric errors, `authenticationFailed`, `registrationLocked`.
    public func finishAuthentication(deviceId: String, _ parameter: AuthParameter, tokenPurpose: TokenPurpose) throws -> AuthenticationOutcome {
        try transact { tx, effects in
            let device = try device(tx, deviceId)
            let session = try openSession(tx, deviceId: deviceId, kinds: [.authentication])
            var registration = try registration(tx, heldBy: device)
            guard registration.id == session.registrationId else {
                throw DomainError(.noSessionInProgress, "No authentication was started for this registration")
            }
            try requireActive(registration)
            guard registration.methods.contains(parameter.method) else {
                throw DomainError(.authMethodNotAllowed, "\(parameter.method.rawValue) is not activated for this registration")
            }
            var pushed = try session.pushedAuthenticationId.flatMap { try tx.fetch(PushedAuthenticationRecord.self, id: $0) }
            if let current = pushed, current.status != PushedAuthenticationStatus.pending.rawValue || now >= current.expiresAt {
                throw DomainError(.sessionExpired, "The pushed authentication in hand expired or was decided; start again")
            }
            if pushed != nil, !parameter.method.isTwoFactor {
                throw DomainError(.authMethodNotAllowed, "A pushed authentication needs a two-factor method")
            }
            if tokenPurpose != .none, !parameter.method.isTwoFactor {
                throw DomainError(.authMethodNotAllowed, "A token needs a two-factor method; device alone cannot yield one")
            }
            let context = pushed.map { "\($0.contextTitle ?? "")\u{0}\($0.contextContent ?? "")\u{0}\($0.contextMIME ?? "")" }
            try verifyFactor(tx, effects, device: device, registration: &registration, session: session, parameter, context: context)
            try DeviceKeychain(tx: tx, deviceId: deviceId).set(.lastAuthenticationMethod, parameter.method.rawValue)
            if var approved = pushed {
                approved.status = PushedAuthenticationStatus.approved.rawValue
                approved.decidedAt = now
                try tx.save(approved)
                pushed = approved
                try audit(tx, effects, .pushedAuthenticationApproved, userId: registration.userId, registrationId: registration.id)
            }
            let token = try issueToken(tx, effects, registration: registration, purpose: tokenPurpose)
            return AuthenticationOutcome(contextContent: pushed?.contextContent, token: token)
        }
    }
}
