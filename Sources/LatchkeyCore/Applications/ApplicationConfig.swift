import LatchkeyContract

/// How activation codes are written.
public enum ActivationCodeType: String, Sendable, CaseIterable { case numeric, alphanumeric }

/// An application's configuration on the server.
public struct ApplicationConfig: Sendable, Equatable {
    public var applicationId: String
    public var activationCodeLength: Int
    public var activationCodeType: ActivationCodeType
    public var activationCodeTtlSeconds: Int64
    public var pinCodeType: PinCodeType
    public var pinCodeLengthMin: Int
    public var pinCodeLengthMax: Int
    public var maxFailedAttempts: Int
    /// Enabled methods (`device` always is).
    public var authMethods: [AuthMethod]
    /// For each method that proves the user, the methods it may add or update.
    public var addOrUpdateAllowedBy: [AuthMethod: [AuthMethod]]
    public var tokenTtlSeconds: Int64
    public var redirectUrlPrefixes: [String]
    /// The WebAuthn Relying Party this application is: its id, name, origins and whether a
    /// passkey ceremony needs user verification.
    public var relyingParty: ApplicationRelyingParty

    /// The contract's `default` application's settings, with `applicationId` as its id.
    public static func defaults(_ applicationId: String) -> ApplicationConfig {
        var config = defaultSettings
        config.applicationId = applicationId
        return config
    }

    /// Built once: every request on the `default` application before it is configured reads them.
    private static let defaultSettings = ApplicationConfig(
        applicationId: defaultApplicationId, activationCodeLength: 8, activationCodeType: .numeric,
        activationCodeTtlSeconds: 86_400, pinCodeType: .numeric, pinCodeLengthMin: 4, pinCodeLengthMax: 8,
        maxFailedAttempts: 5, authMethods: AuthMethod.allCases,
        addOrUpdateAllowedBy: [.pin: [.pin, .touchId, .faceId], .faceId: [.touchId], .touchId: [.faceId], .device: []],
        tokenTtlSeconds: 300, redirectUrlPrefixes: ["app://"], relyingParty: .defaults)

    public static let defaultApplicationId = "default"

    /// The PIN rules a device needs to ask for a PIN.
    public var pinRules: PinRules { PinRules(type: pinCodeType, minLength: pinCodeLengthMin, maxLength: pinCodeLengthMax) }

    /// The methods `proof` may add or update, never a two-factor one for a single-factor proof.
    public func methodsAddableBy(_ proof: AuthMethod) -> [AuthMethod] {
        let allowed = addOrUpdateAllowedBy[proof, default: []]
        return AuthMethod.canonical(allowed.filter { proof.isTwoFactor || !$0.isTwoFactor })
    }
}

extension ApplicationConfig {
    /// The contract's bounds for the settings an operator may change.
    public enum Bounds {
        public static let activationCodeLength: ClosedRange<Int64> = 6...32
        public static let pinCodeLength: ClosedRange<Int64> = 4...64
        public static let maxFailedAttempts: ClosedRange<Int64> = 3...10
        public static let tokenTtlSeconds: ClosedRange<Int64> = 30...900
    }

    /// Applies the changes given; `device` stays enabled whatever the list says.
    mutating func apply(_ changes: ApplicationChanges) {
        if let value = changes.activationCodeLength { activationCodeLength = value }
        if let value = changes.activationCodeType { activationCodeType = value }
        if let value = changes.activationCodeTtlSeconds { activationCodeTtlSeconds = value }
        if let value = changes.pinCodeType { pinCodeType = value }
        if let value = changes.pinCodeLengthMin { pinCodeLengthMin = value }
        if let value = changes.pinCodeLengthMax { pinCodeLengthMax = value }
        if let value = changes.maxFailedAttempts { maxFailedAttempts = value }
        // `device` is what every registration stands on: it is always enabled.
        if let value = changes.authMethods { authMethods = AuthMethod.canonical(value + [.device]) }
        if let value = changes.addOrUpdateAllowedBy { addOrUpdateAllowedBy = value.mapValues { AuthMethod.canonical($0) } }
        if let value = changes.tokenTtlSeconds { tokenTtlSeconds = value }
        if let value = changes.redirectUrlPrefixes { redirectUrlPrefixes = value }
        if let value = changes.passkeyRpId { relyingParty.rpId = value }
        if let value = changes.passkeyRpName { relyingParty.rpName = value }
        if let value = changes.passkeyOrigins { relyingParty.origins = value }
        if let value = changes.passkeyUserVerification { relyingParty.userVerification = value }
    }
}

/// A change to an application's configuration: absent fields keep their value.
public struct ApplicationChanges: Sendable {
    public var activationCodeLength: Int?
    public var activationCodeType: ActivationCodeType?
    public var activationCodeTtlSeconds: Int64?
    public var pinCodeType: PinCodeType?
    public var pinCodeLengthMin: Int?
    public var pinCodeLengthMax: Int?
    public var maxFailedAttempts: Int?
    public var authMethods: [AuthMethod]?
    public var addOrUpdateAllowedBy: [AuthMethod: [AuthMethod]]?
    public var tokenTtlSeconds: Int64?
    public var redirectUrlPrefixes: [String]?
    public var passkeyRpId: String?
    public var passkeyRpName: String?
    public var passkeyOrigins: [String]?
    public var passkeyUserVerification: UserVerificationPolicy?

    public init() {}
}

extension ApplicationRecord {
    init(_ config: ApplicationConfig) {
        id = config.applicationId
        activationCodeLength = config.activationCodeLength
        activationCodeType = config.activationCodeType.rawValue
        activationCodeTtlSeconds = config.activationCodeTtlSeconds
        pinCodeType = config.pinCodeType.rawValue
        pinCodeLengthMin = config.pinCodeLengthMin
        pinCodeLengthMax = config.pinCodeLengthMax
        maxFailedAttempts = config.maxFailedAttempts
        authMethods = AuthMethod.text(config.authMethods)
        addOrUpdateAllowedBy = AuthMethod.allCases.compactMap { proof in
            config.addOrUpdateAllowedBy[proof].map { "\(proof.rawValue):\(AuthMethod.text($0))" }
        }.joined(separator: ";")
        tokenTtlSeconds = config.tokenTtlSeconds
        redirectUrlPrefixes = config.redirectUrlPrefixes.joined(separator: "\n")
        passkeyRpId = config.relyingParty.rpId
        passkeyRpName = config.relyingParty.rpName
        passkeyOrigins = config.relyingParty.origins.joined(separator: "\n")
        passkeyUserVerification = config.relyingParty.userVerification.rawValue
    }

    var config: ApplicationConfig {
        var allowed: [AuthMethod: [AuthMethod]] = [:]
        for entry in addOrUpdateAllowedBy.split(separator: ";") {
            let parts = entry.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard let proof = parts.first.flatMap({ AuthMethod(rawValue: String($0)) }) else { continue }
            allowed[proof] = parts.count > 1 ? AuthMethod.list(String(parts[1])) : []
        }
        return ApplicationConfig(
            applicationId: id, activationCodeLength: activationCodeLength,
            activationCodeType: ActivationCodeType(rawValue: activationCodeType) ?? .numeric,
            activationCodeTtlSeconds: activationCodeTtlSeconds, pinCodeType: PinCodeType(rawValue: pinCodeType) ?? .numeric,
            pinCodeLengthMin: pinCodeLengthMin, pinCodeLengthMax: pinCodeLengthMax, maxFailedAttempts: maxFailedAttempts,
            authMethods: AuthMethod.list(authMethods), addOrUpdateAllowedBy: allowed, tokenTtlSeconds: tokenTtlSeconds,
            redirectUrlPrefixes: redirectUrlPrefixes.split(separator: "\n").map(String.init),
            relyingParty: storedRelyingParty)
    }

    /// The Relying Party settings; a row written before they existed has the defaults.
    private var storedRelyingParty: ApplicationRelyingParty {
        let defaults = ApplicationRelyingParty.defaults
        return ApplicationRelyingParty(
            rpId: passkeyRpId ?? defaults.rpId, rpName: passkeyRpName ?? defaults.rpName,
            origins: passkeyOrigins.map { $0.split(separator: "\n").map(String.init) } ?? defaults.origins,
            userVerification: passkeyUserVerification.flatMap(UserVerificationPolicy.init(rawValue:)) ?? defaults.userVerification)
    }
}
