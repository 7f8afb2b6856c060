import Crypto

/// What a signature is for: the operation of the contract's signed payload.
public enum SignedOperation: String, Sendable, CaseIterable {
    case activate, authenticate, addAuthMethod, removeAuthMethod, removeRegistration, setRecovery, recover
    case approveOperation, rejectOperation
}

/// The role of the key that signs.
public enum KeyRole: String, Sendable, CaseIterable {
    case device, pin, touchId, faceId, recovery

    /// The role of a method's key.
    public init(_ method: AuthMethod) {
        switch method {
        case .device: self = .device
        case .pin: self = .pin
        case .touchId: self = .touchId
        case .faceId: self = .faceId
        }
    }

    /// The method whose key this is (nil for `recovery`).
    public var method: AuthMethod? { AuthMethod(rawValue: rawValue) }
}

/// The bytes every signature and proof of the contract is made over.
///
/// Built in this one place for the server and every device:
///
///     LATCHKEY-V1
///     <operation>
///     <subject>        the activationId (activate) or the registrationId (every other operation)
///     <challenge>      exactly as the server gave it (for setRecovery: the token)
///     <keyRole>
///     <contextHash>    of a pushed authentication picked up by the challenge, or empty; for an
///                      operation its hash (a rejection: `<reason>:<hash>`)
///
/// joined by `\n`, no final newline, UTF-8.
public struct SignedPayload: Sendable, Equatable {
    public var operation: SignedOperation
    public var subject: String
    public var challenge: String
    public var role: KeyRole
    public var contextHash: String

    public init(_ operation: SignedOperation, subject: String, challenge: String, role: KeyRole, contextHash: String = "") {
        self.operation = operation
        self.subject = subject
        self.challenge = challenge
        self.role = role
        self.contextHash = contextHash
    }

    public var bytes: [UInt8] {
        Array(["LATCHKEY-V1", operation.rawValue, subject, challenge, role.rawValue, contextHash].joined(separator: "\n").utf8)
    }

    /// The same payload for another key role.
    public func signed(by role: KeyRole) -> SignedPayload {
        var payload = self
        payload.role = role
        return payload
    }
}

/// A pushed authentication's context as signatures cover it.
public enum PushContext {
    /// The context hash of a challenge that carries no pushed context: empty.
    public static let noContextHash = ""

    /// Unpadded base64url SHA-256 of `contextTitle`, `contextContent` and `contextMIME`, each as a
    /// 4-byte big-endian byte length and its UTF-8 bytes (a null field counts as empty).
    public static func hash(title: String?, content: String?, mime: String?) -> String {
        var data: [UInt8] = []
        for field in [title, content, mime] {
            let bytes = Array((field ?? "").utf8)
            withUnsafeBytes(of: UInt32(clamping: bytes.count).bigEndian) { data.append(contentsOf: $0) }
            data.append(contentsOf: bytes)
        }
        return Base64URL.encode(SHA256.hash(data: data).byteArray)
    }
}
