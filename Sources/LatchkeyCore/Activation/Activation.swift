import LatchkeyContract

extension ActivationRecord {
    static let lifetime: Int64 = 300
    /// The activations a caller opened (by `Caller.key`).
    static let openedBy = KeyedQuery<ActivationRecord>(Columns.caller)
    /// The activations a code opened (one at most: a code's new activation replaces its old one).
    static let ofCode = KeyedQuery<ActivationRecord>(Columns.codeId)
}

extension ActivationCodeRecord {
    /// The codes with this keyed hash, newest first.
    static func withHash(_ hash: String) -> StoreQuery<ActivationCodeRecord> {
        StoreQuery(where: [.equals(Columns.codeHash, hash)], newestFirst: true)
    }
}

extension Latchkey {
    /// The key an activation's row is stored and found by: the keyed hash of its activationId
    /// (122 random bits, as `ceremonyKey`), so that the store alone does not hold what names an
    /// activation (security property 1: its id and challenge, read from the store, would let anyone
    /// commit keys of their own).
    func activationKey(_ activationId: String) -> String { secretHash(activationId, purpose: "activation-id") }

    /// What opening an activation with `code` reads (`ServerSession.prepareActivation`): the
    /// caller's and the application's wrong codes, the application, the codes with this value and
    /// the activations they opened, and the application's operation-signing key.
    public func activationReads(code: String, applicationId: String?, caller: Caller) -> [StoreRead] {
        let application = applicationId ?? ApplicationConfig.defaultApplicationId
        let hash = secretHash(code, purpose: "activation")
        return [
            .rows(ServerSession.activationCodeLimit.events(of: caller.key)), .rows(ServerSession.applicationCodeLimit.events(of: application)),
            .row(ApplicationRecord.self, id: application), .rows(ActivationCodeRecord.withHash(hash)),
            .rows(ActivationRecord.ofCode, .ids(of: ActivationCodeRecord.self, where: [.equals(ActivationCodeRecord.Columns.codeHash, hash)])),
            .row(ApplicationKeyRecord.self, id: application),
        ]
    }
}

extension ServerSession {
    /// Wrong activation codes: 5 an hour per caller, and 100 a minute per application over all
    /// callers (a caller chooses its installationId).
    static let activationCodeLimit = RateLimit(scope: "activationCode", limit: 5, window: 3600)
    static let applicationCodeLimit = RateLimit(scope: "activationCodeApp", limit: 100, window: 60)

    /// Opens an activation with a code and binds the code to it (the same caller's second prepare
    /// replaces the first; another caller's, or one of a code bound by another, is refused while
    /// the activation lives).
    /// - Throws: `rateLimited`, `notFound` (application), `activationCodeInvalid`, `activationCodeExpired`.
    public func prepareActivation(code: String, applicationId: String?, caller: Caller) throws -> KeyRequest {
        tx.willRead(core.activationReads(code: code, applicationId: applicationId, caller: caller))
        let application = applicationId ?? ApplicationConfig.defaultApplicationId
        if let wait = try Self.activationCodeLimit.retryAfter(tx, subject: caller.key, now: now) {
            throw DomainError.rateLimited(
                retryAfter: wait, "too many wrong activation codes " + (caller.deviceId != nil ? "on this device" : "from this installation"))
        }
        if let wait = try Self.applicationCodeLimit.retryAfter(tx, subject: application, now: now) {
            throw DomainError.rateLimited(retryAfter: wait, "too many wrong activation codes for this application")
        }
        let app = try core.application(tx, applicationId)
        let hash = core.secretHash(code, purpose: "activation")
        // The usable code with this value, else the newest used or expired one (for the answer).
        let candidates = try tx.fetchAll(ActivationCodeRecord.withHash(hash))
        let live = try candidates.first { code in try !code.consumed && now < code.expiresAt && !boundElsewhere(code, caller) }
        guard var found = live ?? candidates.first, !found.consumed, found.applicationId.isSameId(as: app.applicationId),
            try !boundElsewhere(found, caller)
        else {
            try Self.activationCodeLimit.record(tx, subject: caller.key, now: now, id: random.identifier("rate"))
            try Self.applicationCodeLimit.record(tx, subject: application, now: now, id: random.identifier("rate"))
            try audit(.activationCodeRejected, caller: caller)
            throw DomainError(.activationCodeInvalid, "The activation code is not valid")
        }
        guard now < found.expiresAt else {
            throw DomainError(.activationCodeExpired, "The activation code has expired; ask for a new one")
        }
        try tx.deleteAll(ActivationRecord.self, where: [.equals(ActivationRecord.Columns.codeId, found.id)])
        found.boundDeviceId = caller.key
        try tx.save(found)
        let request = try openActivation(codeId: found.id, processId: nil, caller: caller, app)
        try audit(.activationStarted, userId: found.userId, caller: caller)
        return request
    }

    /// Whether a code is bound to a live activation of another caller.
    private func boundElsewhere(_ code: ActivationCodeRecord, _ caller: Caller) throws -> Bool {
        guard let bound = code.boundDeviceId, !bound.isSameId(as: caller.key) else { return false }
        return try tx.fetchAll(ActivationRecord.ofCode, code.id).contains { now < $0.expiresAt }
    }

    /// A new activation for a code or an onboarding process: keys for the application's enabled methods.
    func openActivation(codeId: String?, processId: String?, caller: Caller?, _ app: ApplicationConfig) throws -> KeyRequest {
        let activationId = random.uuid()
        let record = ActivationRecord(
            id: core.activationKey(activationId), codeId: codeId, processId: processId, caller: Caller.storedKey(caller),
            challenge: random.secret(byteCount: 32), expiresAt: now + ActivationRecord.lifetime, createdAt: now)
        try tx.save(record)
        return KeyRequest(
            id: activationId, challenge: record.challenge, expiresAt: record.expiresAt,
            authMethodsForActivation: app.authMethods, pinRules: app.pinRules,
            operationSigningKey: try core.operationSigningKey(tx, applicationId: app.applicationId))
    }

    /// Registers the keys of an activation: `device`, and the two-factor keys given, each with its proof.
    ///
    /// Consumes the code (or makes the onboarding registration, which then waits for verification). `activationName` names the
    /// registration.
    /// - Throws: `noSessionInProgress`, `sessionExpired`, `activationCodeInvalid`, `activationCodeExpired`, `onboardingFailed`,
    ///   `authMethodNotAllowed`, `proofInvalid`.
    public func commitActivation(
        activationId: String, keys: KeySet, activationName: String?, tokenPurpose: TokenPurpose,
        caller asker: Caller?
    ) throws -> ActivationOutcome {
        let key = core.activationKey(activationId)
        tx.willRead(Self.commitReads(activationKey: key))
        guard let activation = try tx.fetch(ActivationRecord.self, id: key) else {
            throw DomainError(.noSessionInProgress, "No activation with this id is waiting for its keys")
        }
        // The installation that opened the activation asks (a commit names none of its own).
        let caller = asker ?? Caller(key: activation.caller)
        guard now < activation.expiresAt else {
            throw DomainError(.sessionExpired, "The activation was opened more than 300 seconds ago; open it again")
        }
        let source = try activationSource(activation)
        if let factor = keys.factors.keys.first(where: { !source.app.authMethods.contains($0) }) {
            throw DomainError(.authMethodNotAllowed, "\(factor.rawValue) is not enabled for this application")
        }
        if tokenPurpose != .none, keys.factors.isEmpty {
            throw DomainError(.authMethodNotAllowed, "A token needs a two-factor method; device alone cannot yield one")
        }
        try checkProofs(
            keys, SignedPayload(.activate, subject: activationId, challenge: activation.challenge, role: .device),
            registrationId: nil, caller: caller)
        let registration = try register(
            keys, userId: source.userId, app: source.app, pending: source.process != nil,
            name: activationName, owner: caller)
        if var code = source.code {
            code.consumed = true
            try tx.save(code)
        }
        if let process = source.process { try core.onboardingActivated(tx, effects, process, registrationId: registration.id) }
        try tx.delete(ActivationRecord.self, id: key)
        try audit(
            .activationCompleted, userId: source.userId, registrationId: registration.id, caller: caller,
            detail: keys.factors.isEmpty ? "device" : AuthMethod.text(Array(keys.factors.keys)), activationName: registration.name)
        if let user = try tx.fetch(UserRecord.self, id: source.userId) {
            core.sendSecurityNotice(effects, to: user, "A new device was activated for your account. If this was not you, contact support.")
        }
        let token = try core.issueToken(tx, effects, registration: registration, purpose: tokenPurpose)
        return ActivationOutcome(
            registrationId: registration.id, activatedAuthMethods: registration.methods, token: token,
            serverPublicKey: try core.newServerKey(tx, RegistrationKeyRecord.self, id: registration.id))
    }

    /// What `commitActivation` reads: the activation, the code or the onboarding process it came
    /// from, and their application and user.
    static func commitReads(activationKey: String) -> [StoreRead] {
        let activation = StoreKey.value(activationKey)
        let code = StoreKey.column(ActivationRecord.Columns.codeId, of: ActivationRecord.self, activation)
        let process = StoreKey.column(ActivationRecord.Columns.processId, of: ActivationRecord.self, activation)
        return [
            .row(ActivationRecord.self, id: activation), .row(ActivationCodeRecord.self, id: code), .row(OnboardingProcessRecord.self, id: process),
            .row(
                ApplicationRecord.self,
                id: .either(
                    .column(ActivationCodeRecord.Columns.applicationId, of: ActivationCodeRecord.self, code),
                    .column(OnboardingProcessRecord.Columns.applicationId, of: OnboardingProcessRecord.self, process))),
            .row(
                UserRecord.self,
                id: .either(
                    .column(ActivationCodeRecord.Columns.userId, of: ActivationCodeRecord.self, code),
                    .column(OnboardingProcessRecord.Columns.userId, of: OnboardingProcessRecord.self, process))),
        ]
    }

    /// Where an activation's user and application come from: a code still good, or an onboarding
    /// process that may still activate.
    private func activationSource(
        _ activation: ActivationRecord
    ) throws
        -> (userId: String, app: ApplicationConfig, code: ActivationCodeRecord?, process: OnboardingProcessRecord?)
    {
        if let codeId = activation.codeId {
            guard let code = try tx.fetch(ActivationCodeRecord.self, id: codeId), !code.consumed, code.boundDeviceId.isSameId(as: activation.caller)
            else {
                throw DomainError(.activationCodeInvalid, "The activation code is no longer valid")
            }
            guard now < code.expiresAt else { throw DomainError(.activationCodeExpired, "The activation code has expired") }
            return (code.userId, try core.application(tx, code.applicationId), code, nil)
        }
        let (process, userId) = try core.activatableOnboardingProcess(tx, activation.processId)
        return (userId, try core.application(tx, process.applicationId), nil, process)
    }

    /// A new registration holding the keys given.
    private func register(
        _ keys: KeySet, userId: String, app: ApplicationConfig, pending: Bool, name: String?,
        owner: Caller?
    ) throws -> RegistrationRecord {
        var registration = RegistrationRecord(
            id: random.unguessableIdentifier("reg"), userId: userId, applicationId: app.applicationId,
            deviceId: Caller.storedKey(owner), state: (pending ? RegistrationState.verificationPending : .active).rawValue,
            authMethods: AuthMethod.text(keys.methods), failedAttempts: 0, lastAttempt: nil,
            possessionPublicKey: keys.device.publicKey.sec1, pinPublicKey: nil, touchIdPublicKey: nil, faceIdPublicKey: nil,
            recoveryPublicKey: nil, recoveryFailedAttempts: 0, keyGeneration: 1, signCounter: 0, createdAt: now, name: name)
        for (method, key) in keys.factors { registration.setPublicKey(key.publicKey.sec1, for: method) }
        try tx.save(registration)
        core.registrationStateChanged(effects, registration, from: nil)
        return registration
    }
}
