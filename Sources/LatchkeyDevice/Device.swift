import LatchkeyContract

/// The device half of the contract: what an authenticator SDK keeps and does on a phone.
///
/// It makes and keeps the factor keys (the PIN key masked under the PIN, the recovery key under the
/// recovery code), signs the contract's payloads, keeps what a started operation needs, and refuses
/// locally what never reaches a server (a missing sensor, no biometric match, a PIN off the policy).
/// Everything else it asks the server half through a `ServerConnection`.
///
/// The simulated phones are devices over an in-process connection and the store's device
/// tables; an app could use the same type over its own transport and keychain.
public struct Device {
    public let storage: DeviceStorage
    public let server: ServerConnection
    public let profile: DeviceProfile
    public let random: RandomSource
    public let clock: Clock
    /// Who the server is told asks (limits and audit events are kept per caller).
    public let caller: Caller
    /// Names the running app: an onboarding process started without `canRestoreSession` is
    /// forgotten when the app (another instance) starts again.
    public let instance: String
    /// The PIN's key derivation, made ahead of the call for the salt the device was expected to hold
    /// (`PinDerivation`); unused when that guess is stale.
    public var pinDerivation: PinDerivation?

    public init(
        storage: DeviceStorage, server: ServerConnection, profile: DeviceProfile, random: RandomSource, clock: Clock,
        caller: Caller, instance: String
    ) {
        self.storage = storage
        self.server = server
        self.profile = profile
        self.random = random
        self.clock = clock
        self.caller = caller
        self.instance = instance
    }

    var now: UnixTime { clock.now }

    // MARK: local state

    /// The registration the device holds, if any.
    public var registrationId: String? { get throws { try storage.string(.registrationId) } }

    /// Whether the device holds an activation.
    public var isActivatedLocally: Bool { get throws { try storage.item(.registrationId) != nil } }

    /// Whether the device holds recovery data (from its own setup, or a restored backup).
    public var isRecoveryActivated: Bool { get throws { try storage.item(.recoveryMaskedKey) != nil } }

    /// Throws `refusal`, a refusal of the factor the device makes on its own, once the registration's state has had its say.
    ///
    /// A finish checks the session, then the state, then the factor (the Rules), so a locked, removed or pending registration
    /// answers its state first, as the server would.
    func refuseFactor(_ refusal: DomainError, registrationId: String) throws -> Never {
        if let stateRefusal = try server.registrationStatus(registrationId: registrationId).state.refusal { throw stateRefusal }
        throw refusal
    }

    /// The registration the device holds.
    /// - Throws: `notActivatedLocally`.
    func heldRegistration() throws -> String {
        guard let registrationId = try registrationId else {
            throw DomainError(.notActivatedLocally, "This device holds no activation")
        }
        return registrationId
    }

    /// The methods activated on this device.
    func activatedMethods() throws -> [AuthMethod] {
        AuthMethod.list(try storage.string(.activatedMethods) ?? "")
    }

    /// The started operation of `kind`, checked for presence and age (the first checks of a finish).
    /// - Throws: `noSessionInProgress`, `sessionExpired`.
    func pending(_ kinds: PendingOperation.Kind...) throws -> PendingOperation {
        guard let operation = try storage.pendingOperation(), kinds.contains(operation.kind) else {
            throw DomainError(.noSessionInProgress, "No operation of this kind was started on this device")
        }
        guard now < operation.expiresAt else {
            throw DomainError(.sessionExpired, "The operation was started 300 seconds ago or more; start it again")
        }
        return operation
    }

    /// Refuses an answer for a registration whose device key (its `keyId`, as a challenge or the operations inbox carries it) is
    /// not this device's (a recovery moved it elsewhere).
    /// - Throws: `registrationRemoved`, with `message`.
    func requireThisDevice(keyId deviceKeyId: String, _ message: String = "The registration was removed or moved to another device") throws {
        guard let key = try storage.item(.possessionKey), FactorKey.keyId(of: key) == deviceKeyId else {
            throw DomainError(.registrationRemoved, message)
        }
    }

    /// The device's signatures over `payload`: its device key's, and `parameter`'s second factor (after the biometric check).
    ///
    /// A wrong PIN unmasks a wrong key that still signs: only the server can tell.
    func signatures(_ payload: SignedPayload, _ parameter: AuthParameter) throws -> FactorSignatures {
        try profile.checkBiometry(parameter.method)
        let device = try FactorKey.sign(payload.signed(by: .device), with: try storage.item(.possessionKey) ?? [])
        guard parameter.method.isTwoFactor else { return FactorSignatures(device: device) }
        let key = try privateKey(parameter)
        return FactorSignatures(
            device: device, factor: (parameter.method, try FactorKey.sign(payload.signed(by: KeyRole(parameter.method)), with: key)))
    }

    /// The private key of a two-factor method (the PIN's unmasked with the PIN given).
    func privateKey(_ parameter: AuthParameter) throws -> [UInt8] {
        switch parameter.method {
        case .device: return try storage.item(.possessionKey) ?? []
        case .pin:
            let salt = try storage.item(.pinSalt) ?? []
            let masked = try storage.item(.pinMaskedKey) ?? []
            let pin = parameter.pin ?? ""
            if let key = pinDerivation?.unmask(masked, pin: pin, salt: salt) { return key }
            return try KeyMask.unmask(masked, secret: pin, salt: salt, rounds: KeyMask.pinRounds)
        case .touchId: return try storage.item(.touchIdKey) ?? []
        case .faceId: return try storage.item(.faceIdKey) ?? []
        }
    }

    /// A new key for `parameter`'s method, to be stored with `storeFactorKey` once the server took it.
    func newFactorKey() -> [UInt8] { FactorKey.generate(random) }

    /// Keeps a two-factor key: the PIN's masked under the PIN with a fresh salt.
    func storeFactorKey(_ key: [UInt8], for parameter: AuthParameter) throws {
        switch parameter.method {
        case .device: try storage.setItem(.possessionKey, key)
        case .pin:
            let salt = random.bytes(16)
            try storage.setItem(.pinSalt, salt)
            try storage.setItem(.pinMaskedKey, try KeyMask.mask(key, secret: parameter.pin ?? "", salt: salt, rounds: KeyMask.pinRounds))
        case .touchId: try storage.setItem(.touchIdKey, key)
        case .faceId: try storage.setItem(.faceIdKey, key)
        }
    }

    func removeFactorKey(_ method: AuthMethod) throws {
        switch method {
        case .device: return
        case .pin:
            try storage.setItem(.pinSalt, nil)
            try storage.setItem(.pinMaskedKey, nil)
        case .touchId: try storage.setItem(.touchIdKey, nil)
        case .faceId: try storage.setItem(.faceIdKey, nil)
        }
    }

    func setActivatedMethods(_ methods: [AuthMethod]) throws {
        try storage.set(.activatedMethods, AuthMethod.text(methods))
    }
}

/// What the user presents to prove themselves: a method, and the PIN for `pin`.
public struct AuthParameter: Sendable, Equatable {
    public var method: AuthMethod
    public var pin: String?

    public init(method: AuthMethod, pin: String? = nil) {
        self.method = method
        self.pin = pin
    }

    /// The PIN the PIN key is unmasked with, when the method is the PIN.
    public var unmaskingPin: String? { method == .pin ? pin : nil }
}

/// What a started activation (or recovery) offers: the methods the user may pick on this device
/// and the PIN rules.
public struct ActivationOffer: Sendable, Equatable {
    public var authMethodsForActivation: [AuthMethod]
    public var pinCodeType: PinCodeType
    public var pinCodeLengthMin: Int
    public var pinCodeLengthMax: Int

    init(_ methods: [AuthMethod], _ rules: PinRules) {
        authMethodsForActivation = methods
        pinCodeType = rules.type
        pinCodeLengthMin = rules.minLength
        pinCodeLengthMax = rules.maxLength
    }
}
