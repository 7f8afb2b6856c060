import LatchkeyContract

extension RegistrationRecord {
    var registrationState: RegistrationState { RegistrationState(rawValue: state) ?? .removed }
    var methods: [AuthMethod] { AuthMethod.list(authMethods) }
    /// The `keyId` of its device key: what a phone compares with its own to know it is still this registration's device.
    var deviceKeyId: String { PublicKey.keyId(sec1: possessionPublicKey) }

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
