import LatchkeyContract

/// The operation a device started and has not finished: what the server gave it to finish with.
///
/// One at a time: starting another replaces it, as the SDK's session does. Kept in the device's storage
/// (this-device-only).
struct PendingOperation: Equatable {
    enum Kind: String, CaseIterable {
        case activation, authentication, addOrUpdate, recovery, recoveryAddOrUpdate, recoveryDelete
    }

    var kind: Kind
    /// The activationId, challengeId or grantId.
    var id: String
    /// The challenge to sign (for a recovery change: the grant's secret).
    var challenge: String
    var expiresAt: UnixTime
    /// The registration (recoveries and recovery changes).
    var registrationId: String?
    var contextHash = ""
    /// The application's enabled methods (activation, recovery), or the methods it may add or
    /// update (addOrUpdate).
    var methods: [AuthMethod] = []
    var pinRules = PinRules(type: .numeric, minLength: 4, maxLength: 8)
    /// The name an onboarding activation gave.
    var activationName: String?
    /// The onboarding process an activation came from.
    var processId: String?

    /// `key=value` lines, every value base64url (the device half has no JSON).
    var encoded: [UInt8] {
        var fields: [(String, String)] = [
            ("kind", kind.rawValue), ("id", id), ("challenge", challenge), ("expiresAt", String(expiresAt)),
            ("contextHash", contextHash), ("methods", AuthMethod.text(methods)), ("pinType", pinRules.type.rawValue),
            ("pinMin", String(pinRules.minLength)), ("pinMax", String(pinRules.maxLength)),
        ]
        if let registrationId { fields.append(("registrationId", registrationId)) }
        if let activationName { fields.append(("activationName", activationName)) }
        if let processId { fields.append(("processId", processId)) }
        return Array(fields.map { "\($0.0)=\(Base64URL.encode(Array($0.1.utf8)))" }.joined(separator: "\n").utf8)
    }

    init(kind: Kind, id: String, challenge: String, expiresAt: UnixTime) {
        self.kind = kind
        self.id = id
        self.challenge = challenge
        self.expiresAt = expiresAt
    }

    /// An activation or a recovery: new keys for `request`'s methods, under its PIN rules.
    init(kind: Kind, _ request: KeyRequest) {
        self.init(kind: kind, id: request.id, challenge: request.challenge, expiresAt: request.expiresAt)
        methods = request.authMethodsForActivation
        pinRules = request.pinRules
    }

    /// Reads what `encoded` wrote; nil for anything else.
    init?(encoded bytes: [UInt8]) {
        var fields: [String: String] = [:]
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, let value = Base64URL.decode(String(parts[1])) else { return nil }
            fields[String(parts[0])] = String(decoding: value, as: UTF8.self)
        }
        guard let kind = fields["kind"].flatMap(Kind.init(rawValue:)), let id = fields["id"], let challenge = fields["challenge"],
            let expiresAt = fields["expiresAt"].flatMap({ Int64($0) }),
            let pinType = fields["pinType"].flatMap(PinCodeType.init(rawValue:)),
            let pinMin = fields["pinMin"].flatMap({ Int($0) }), let pinMax = fields["pinMax"].flatMap({ Int($0) })
        else { return nil }
        self.init(kind: kind, id: id, challenge: challenge, expiresAt: expiresAt)
        contextHash = fields["contextHash"] ?? ""
        methods = AuthMethod.list(fields["methods"] ?? "")
        pinRules = PinRules(type: pinType, minLength: pinMin, maxLength: pinMax)
        registrationId = fields["registrationId"]
        activationName = fields["activationName"]
        processId = fields["processId"]
    }
}

extension DeviceStorage {
    func pendingOperation() throws -> PendingOperation? {
        try item(.pendingOperation).flatMap(PendingOperation.init(encoded:))
    }

    func setPendingOperation(_ operation: PendingOperation?) throws {
        try setItem(.pendingOperation, operation?.encoded)
    }
}
