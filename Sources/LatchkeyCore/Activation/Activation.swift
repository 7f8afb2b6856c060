/// What a started activation offers: the methods the user may pick and the PIN rules.
public struct ActivationOffer: Sendable, Equatable {
    public var authMethodsForActivation: [AuthMethod]
    public var pinCodeType: PinCodeType
    public var pinCodeLengthMin: Int
    public var pinCodeLengthMax: Int
}

/// What a finished activation (or recovery) answers.
public struct ActivationOutcome: Sendable, Equatable {
    public var registrationId: String
    public var activatedAuthMethods: [AuthMethod]
    public var token: String?
}

extension Latchkey {
    /// Methods enabled for the application and available on the device.
    func methodsOffered(_ app: ApplicationConfig, _ device: DeviceRecord) -> [AuthMethod] {
        AuthMethod.canonical(app.authMethods.filter(device.supports))
    }

    func offer(_ app: ApplicationConfig, _ device: DeviceRecord) -> ActivationOffer {
        ActivationOffer(authMethodsForActivation: methodsOffered(app, device), pinCodeType: app.pinCodeType,
                        pinCodeLengthMin: app.pinCodeLengthMin, pinCodeLengthMax: app.pinCodeLengthMax)
    }

    /// Checks an activation code and binds it to the device.
    /// - Throws: `notFound` (device, application), `alreadyActivated`, `rateLimited`,
    ///   `activationCodeInvalid`, `activationCodeExpired`.
    public func startActivation(deviceId: String, activationCode: String, applicationId: String?) throws -> ActivationOffer {
        try transact { tx, effects in
            let device = try device(tx, deviceId)
            let keychain = DeviceKeychain(tx: tx, deviceId: deviceId)
            if try keychain.get(.registrationId) != nil {
                throw DomainError(.alreadyActivated, "This device holds an activation already; deactivate it first")
            }
            if let wait = try Self.activationCodeLimit.retryAfter(tx, subject: deviceId, now: now) {
                throw DomainError.rateLimited(retryAfter: wait, "too many wrong activation codes on this device")
            }
            let app = try application(tx, applicationId)
            let hash = try codeHash(tx, activationCode, purpose: "activation")
            // The usable code with this value, else the newest used or expired one (for the answer).
            let candidates = try tx.fetchAll(ActivationCodeRecord.self, where: [.equals("codeHash", hash)], newestFirst: true, limit: nil)
            let live = candidates.first { !$0.consumed && now < $0.expiresAt && ($0.boundDeviceId == nil || $0.boundDeviceId == deviceId) }
            guard var code = live ?? candidates.first,
                  !code.consumed, code.applicationId == app.applicationId,
                  code.boundDeviceId == nil || code.boundDeviceId == deviceId else {
                try Self.activationCodeLimit.record(tx, subject: deviceId, now: now, id: random.identifier("rate"))
                try audit(tx, effects, .activationCodeRejected, deviceId: deviceId)
                throw DomainError(.activationCodeInvalid, "The activation code is not valid")
            }
            guard now < code.expiresAt else {
                throw DomainError(.activationCodeExpired, "The activation code has expired; ask for a new one")
            }
            code.boundDeviceId = deviceId
            try tx.save(code)
            try startSession(tx, deviceId: deviceId, kind: .activation, registration: nil, activationCodeId: code.id)
            try audit(tx, effects, .activationStarted, userId: code.userId, deviceId: deviceId)
            return offer(app, device)
        }
    }

    /// Finishes an activation (from an activation code or an onboarding OTP): makes the factor
    /// keys on the device and the registration on the server.
    /// - Throws: `noSessionInProgress`, `sessionExpired`, `activationCodeInvalid`,
    ///   `activationCodeExpired`, `authMethodNotAllowed`, `biometryUnavailable`, `policyViolation`,
    ///   `biometryFailed`, `biometryCancelled`, `onboardingFailed`.
    public func finishActivation(deviceId: String, _ parameter: AuthParameter, tokenPurpose: TokenPurpose,
                                 activationName: String? = nil) throws -> ActivationOutcome {
        try transact { tx, effects in
            let device = try device(tx, deviceId)
            let session = try openSession(tx, deviceId: deviceId, kinds: [.activation])
            let userId: String
            let app: ApplicationConfig
            var code: ActivationCodeRecord?
            var onboarding: OnboardingProcessRecord?
            if let codeId = session.activationCodeId {
                guard let found = try tx.fetch(ActivationCodeRecord.self, id: codeId), !found.consumed,
                      found.boundDeviceId == deviceId else {
                    throw DomainError(.activationCodeInvalid, "The activation code is no longer valid")
                }
                guard now < found.expiresAt else { throw DomainError(.activationCodeExpired, "The activation code has expired") }
                code = found
                userId = found.userId
                app = try application(tx, found.applicationId)
            } else if let processId = session.onboardingProcessId {
                let process = try activatableOnboardingProcess(tx, processId)
                onboarding = process
                userId = process.userId ?? ""
                app = try application(tx, process.applicationId)
            } else {
                throw DomainError(.noSessionInProgress, "No activation was started on this device")
            }
            let offered = methodsOffered(app, device)
            guard app.authMethods.contains(parameter.method) else {
                throw DomainError(.authMethodNotAllowed, "\(parameter.method.rawValue) is not enabled for this application")
            }
            guard offered.contains(parameter.method) else {
                throw DomainError(.biometryUnavailable, "This device has no \(parameter.method.rawValue)")
            }
            if tokenPurpose != .none, !parameter.method.isTwoFactor {
                throw DomainError(.authMethodNotAllowed, "A token needs a two-factor method; device alone cannot yield one")
            }
            if parameter.method == .pin { try PinPolicy(app).check(parameter.pin ?? "") }
            let factors = DeviceFactors(keychain: DeviceKeychain(tx: tx, deviceId: deviceId), device: device, random: random)
            try factors.checkBiometry(parameter.method)

            // Device: new keys, kept this-device-only. Server: the public keys only.
            let registrationId = random.identifier("reg")
            var registration = RegistrationRecord(
                id: registrationId, userId: userId, applicationId: app.applicationId, deviceId: deviceId,
                state: (onboarding != nil ? RegistrationState.verificationPending : .active).rawValue,
                authMethods: AuthMethod.text([.device, parameter.method]), failedAttempts: 0, lastAttempt: nil,
                possessionPublicKey: try factors.createPossessionKey(), pinPublicKey: nil, touchIdPublicKey: nil,
                faceIdPublicKey: nil, recoveryPublicKey: nil, recoveryFailedAttempts: 0, keyGeneration: 1, signCounter: 0,
                createdAt: now, name: activationName ?? onboarding?.activationName ?? device.name)
            if parameter.method.isTwoFactor {
                registration.setPublicKey(try factors.createFactorKey(parameter), for: parameter.method)
            }
            try tx.save(registration)
            try factors.keychain.set(.registrationId, registrationId)
            try factors.keychain.setActivatedMethods(registration.methods)

            if var code {
                code.consumed = true
                try tx.save(code)
            }
            if let onboarding { try onboardingActivated(tx, effects, onboarding, registrationId: registrationId) }
            try tx.delete(OperationSessionRecord.self, id: deviceId)
            try audit(tx, effects, .activationCompleted, userId: userId, registrationId: registrationId, deviceId: deviceId,
                      detail: parameter.method.rawValue, activationName: registration.name)
            if let user = try tx.fetch(UserRecord.self, id: userId) {
                sendSecurityNotice(effects, to: user, "A new device was activated for your account. If this was not you, contact support.")
            }
            let token = try issueToken(tx, effects, registration: registration, purpose: tokenPurpose)
            return ActivationOutcome(registrationId: registrationId, activatedAuthMethods: registration.methods, token: token)
        }
    }
}
