import Crypto

/// Something a user approves on their phone — a payment, a sign-in elsewhere — with what the phone
/// shows (title, message, data) bound to the signature (PSD2's dynamic linking).
///
/// What both halves see of it: the server keeps it, a phone lists, shows and approves it.
public struct Operation: Sendable, Equatable {
    /// ≥ 122 random bits.
    public var operationId: String
    public var userId: String
    public var applicationId: String
    /// The one phone that may approve it (nil: any of the user's in the application).
    public var registrationId: String?
    /// The template's name.
    public var template: String
    public var data: String
    public var title: String
    public var message: String
    public var attributes: [OperationAttribute]
    public var status: OperationStatus
    public var failureCount: Int
    public var maxFailureCount: Int
    public var createdAt: UnixTime
    public var expiresAt: UnixTime
    public var decidedAt: UnixTime?
    public var approvedWith: OperationApproval?
    public var rejectReason: OperationRejectReason?
    /// The back end's own reference (≤ 128 characters, not unique).
    public var externalId: String?

    public init(
        operationId: String, userId: String, applicationId: String, registrationId: String?, template: String, data: String,
        title: String, message: String, attributes: [OperationAttribute], status: OperationStatus, failureCount: Int,
        maxFailureCount: Int, createdAt: UnixTime, expiresAt: UnixTime, decidedAt: UnixTime?, approvedWith: OperationApproval?,
        rejectReason: OperationRejectReason?, externalId: String?
    ) {
        self.operationId = operationId
        self.userId = userId
        self.applicationId = applicationId
        self.registrationId = registrationId
        self.template = template
        self.data = data
        self.title = title
        self.message = message
        self.attributes = attributes
        self.status = status
        self.failureCount = failureCount
        self.maxFailureCount = maxFailureCount
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.decidedAt = decidedAt
        self.approvedWith = approvedWith
        self.rejectReason = rejectReason
        self.externalId = externalId
    }

    /// The hash an approval signs, over this operation's id, title, message and data.
    public var hash: String { OperationHash.of(operationId: operationId, title: title, message: message, data: data) }
}

/// Where an operation stands (PowerAuth's spelling: `canceled`).
///
/// Only `pending` changes, and only once.
public enum OperationStatus: String, Sendable, CaseIterable {
    case pending, approved, rejected, failed, expired, canceled
}

/// How an operation was approved.
public enum OperationApproval: String, Sendable, CaseIterable {
    case pin, touchId, faceId, passkey, offline

    /// The approval a two-factor method gives (nil for `device`, which approves nothing).
    public init?(_ method: AuthMethod) {
        switch method {
        case .pin: self = .pin
        case .touchId: self = .touchId
        case .faceId: self = .faceId
        case .device: return nil
        }
    }
}

/// Why the user rejected an operation (the Mobile Token API's reasons).
public enum OperationRejectReason: String, Sendable, CaseIterable {
    case unknown, incorrectData, unexpectedOperation
}

/// What a phone lists for an operation: each renders part of its data (attributes add nothing to it).
public enum OperationAttribute: Sendable, Equatable {
    case amount(label: String, amount: String, currency: String)
    case keyValue(label: String, value: String)
    case note(label: String, note: String)
    case heading(label: String)

    /// The kind's wire name.
    public var type: String {
        switch self {
        case .amount: "amount"
        case .keyValue: "keyValue"
        case .note: "note"
        case .heading: "heading"
        }
    }

    public var label: String {
        switch self {
        case .amount(let label, _, _), .keyValue(let label, _), .note(let label, _), .heading(let label): label
        }
    }
}

/// What an approval signs: the operation's hash.
public enum OperationHash {
    /// Unpadded base64url SHA-256 of `operationId`, `title`, `message` and `data`, each as a 4-byte
    /// big-endian byte length followed by its UTF-8 bytes.
    public static func of(operationId: String, title: String, message: String, data: String) -> String {
        var bytes: [UInt8] = []
        for field in [operationId, title, message, data] {
            let utf8 = Array(field.utf8)
            withUnsafeBytes(of: UInt32(clamping: utf8.count).bigEndian) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: utf8)
        }
        return Base64URL.encode(SHA256.hash(data: bytes).byteArray)
    }

    /// The last line of a rejection's payload: `<reason>:<hash>`.
    public static func rejection(_ reason: OperationRejectReason, hash: String) -> String { "\(reason.rawValue):\(hash)" }
}
