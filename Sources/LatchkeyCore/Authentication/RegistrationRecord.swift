import LatchkeyContract

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

    var registrationState: RegistrationState { RegistrationState(rawValue: state) ?? .removed }
    var methods: [AuthMethod] { AuthMethod.list(authMethods) }

    func publicKey(for method: AuthMethod) -> [UInt8]? {
        switch method {
        case .device: return possessionPublicKey
        case .pin: return pinPublicKey
        case .touchId: return touchIdPublicKey
        case .faceId: return faceIdPublicKey
        }
    }

    mutating func setPublicKey(_ key: [UInt8]?, for method: AuthMethod) {
        switch method {
        case .device: if let key { possessionPublicKey = key }
        case .pin: pinPublicKey = key
        case .touchId: touchIdPublicKey = key
        case .faceId: faceIdPublicKey = key
        }
    }
}

/// A registration as an operator sees it.
public struct RegistrationInfo: Sendable, Equatable {
    public var registrationId: String
    public var userId: String
    public var applicationId: String
    public var name: String?
    public var state: RegistrationState
    public var authMethods: [AuthMethod]
    public var failedAttempts: Int
    public var maxFailedAttempts: Int
    public var recoveryMethods: [String]
    public var lastAttempt: UnixTime?
}
