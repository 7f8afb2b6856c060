import LatchkeyContract

extension Device {
    /// Opens an activation with a code: the offer lists the application's enabled methods that
    /// this device has.
    /// - Throws: `alreadyActivated`, and the server's `rateLimited`, `notFound` (application),
    ///   `activationCodeInvalid`, `activationCodeExpired`.
    public func startActivation(code: String, applicationId: String?) throws -> ActivationOffer {
        if try isActivatedLocally {
            throw DomainError(.alreadyActivated, "This device holds an activation already; deactivate it first")
        }
        let prepared = try server.prepareActivation(code: code, applicationId: applicationId, caller: caller)
        return try openActivation(prepared)
    }

    /// Keeps a prepared activation as the operation in hand and answers its offer.
    func openActivation(_ prepared: KeyRequest, name: String? = nil, processId: String? = nil) throws -> ActivationOffer {
        var operation = PendingOperation(kind: .activation, prepared)
        operation.activationName = name
        operation.processId = processId
        try storage.setPendingOperation(operation)
        // A new activation learns the application's operation-signing key (kept from then on).
        try storage.setItem(.operationSigningKey, prepared.operationSigningKey?.sec1)
        return ActivationOffer(prepared.authMethodsForActivation.filter(profile.supports), prepared.pinRules)
    }

    /// Makes the keys and has the server register them: `device`, and `parameter`'s method when it is a two-factor one.
    ///
    /// The registration is named `activationName`, else the name an onboarding activation gave, else the device's name.
    /// - Throws: `noSessionInProgress`, `sessionExpired`, `authMethodNotAllowed`, `biometryUnavailable`, `policyViolation`,
    ///   `biometryFailed`, `biometryCancelled`, and the server's answers.
    public func finishActivation(_ parameter: AuthParameter, tokenPurpose: TokenPurpose, activationName: String?) throws -> ActivationOutcome {
        let operation = try pending(.activation)
        try checkNewFactor(parameter, enabled: operation.methods, rules: operation.pinRules)
        if tokenPurpose != .none, !parameter.method.isTwoFactor {
            throw DomainError(.authMethodNotAllowed, "A token needs a two-factor method; device alone cannot yield one")
        }
        try profile.checkBiometry(parameter.method)
        let payload = SignedPayload(.activate, subject: operation.id, challenge: operation.challenge, role: .device)
        let (keys, deviceKey, factorKey) = try newKeys(payload, parameter)
        let outcome = try server.commitActivation(
            activationId: operation.id, keys: keys,
            activationName: activationName ?? operation.activationName ?? profile.name,
            tokenPurpose: tokenPurpose, caller: caller)
        try keep(registrationId: outcome.registrationId, deviceKey: deviceKey, factorKey: factorKey, parameter, methods: outcome.activatedAuthMethods)
        try learn(serverPublicKey: outcome.serverPublicKey)
        return outcome
    }

    /// The checks of a method to activate: enabled for the application, present on the device,
    /// a PIN within the policy.
    func checkNewFactor(_ parameter: AuthParameter, enabled: [AuthMethod], rules: PinRules) throws {
        guard enabled.contains(parameter.method) else {
            throw DomainError(.authMethodNotAllowed, "\(parameter.method.rawValue) is not enabled for this application")
        }
        guard profile.supports(parameter.method) else {
            throw DomainError(.biometryUnavailable, "This device has no \(parameter.method.rawValue)")
        }
        if parameter.method == .pin { try rules.check(parameter.pin ?? "") }
    }

    /// A new device key and, for a two-factor method, its key, each handed over with its proof.
    func newKeys(_ payload: SignedPayload, _ parameter: AuthParameter) throws -> (KeySet, [UInt8], [UInt8]?) {
        let deviceKey = FactorKey.generate(random)
        guard let device = try FactorKey.handOver(deviceKey, payload.signed(by: .device)) else { throw KeyGenerationFailed() }
        guard parameter.method.isTwoFactor else { return (KeySet(device: device), deviceKey, nil) }
        let factorKey = newFactorKey()
        guard let factor = try FactorKey.handOver(factorKey, payload.signed(by: KeyRole(parameter.method))) else { throw KeyGenerationFailed() }
        return (KeySet(device: device, factors: [parameter.method: factor]), deviceKey, factorKey)
    }

    /// Keeps a new activation: the registration, the keys (this-device-only), the methods.
    func keep(registrationId: String, deviceKey: [UInt8], factorKey: [UInt8]?, _ parameter: AuthParameter, methods: [AuthMethod]) throws {
        try storage.set(.registrationId, registrationId)
        try storage.setItem(.possessionKey, deviceKey)
        if let factorKey { try storeFactorKey(factorKey, for: parameter) }
        try setActivatedMethods(methods)
        try storage.setPendingOperation(nil)
    }
}

/// A freshly drawn key had no public key (it never happens: the draw is checked).
struct KeyGenerationFailed: Error {}
