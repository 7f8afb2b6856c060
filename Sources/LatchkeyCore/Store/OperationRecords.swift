import LatchkeyContract

// The rows of operations (issue 38) and of the server's own keys, in the order the migrations
// create them; read side by side with Migrations.swift (v7) and PostgresMigrations.swift (v8).

/// What operations of one kind look like in one application: texts with `${param}` placeholders.
struct OperationTemplateRecord: StoredRecord {
    static let table = "operation_template"
    /// `<applicationId>/<name>`.
    var id: String
    var applicationId: String
    var name: String
    var title: String
    var message: String
    var data: String
    /// The attributes, as `OperationAttributes` encodes them (CBOR).
    var attributes: [UInt8]
    var maxFailureCount: Int
    var ttlSeconds: Int64
    /// One method a line.
    var allowedMethods: String
    var createdAt: Int64
}

/// An operation: what the user approves, filled from its template, with its state and counters.
struct OperationRecord: StoredRecord {
    static let table = "operation"
    var id: String
    var userId: String
    var applicationId: String
    var registrationId: String?
    var template: String
    var data: String
    var title: String
    var message: String
    /// The filled attributes (CBOR, as `OperationAttributes` encodes them).
    var attributes: [UInt8]
    var status: String
    var failureCount: Int
    var maxFailureCount: Int
    /// The template's methods when the operation was made, one a line.
    var allowedMethods: String
    var createdAt: Int64
    var expiresAt: Int64
    var decidedAt: Int64?
    var approvedWith: String?
    var rejectReason: String?
    var externalId: String?
}

/// A P-256 key the server holds, its private half sealed (`Sealed`, the row's id as associated data).
protocol ServerKeyRecord: StoredRecord {
    /// The kind it is sealed as.
    static var sealedKind: SealedKind { get }
    /// The 32-byte private key, sealed.
    var sealedPrivateKey: [UInt8] { get }
    /// The 65-byte uncompressed public key.
    var publicKey: [UInt8] { get }
    init(id: String, sealedPrivateKey: [UInt8], publicKey: [UInt8], createdAt: Int64)
}

/// An application's operation-signing key (it signs QR payloads); `id` is the application's.
struct ApplicationKeyRecord: ServerKeyRecord {
    static let table = "application_key"
    static let sealedKind = SealedKind.operationSigningKey
    var id: String
    var sealedPrivateKey: [UInt8]
    var publicKey: [UInt8]
    var createdAt: Int64
}

/// A registration's server key (offline approval's key agreement); `id` is the registration's.
struct RegistrationKeyRecord: ServerKeyRecord {
    static let table = "registration_key"
    static let sealedKind = SealedKind.serverKey
    var id: String
    var sealedPrivateKey: [UInt8]
    var publicKey: [UInt8]
    var createdAt: Int64
}

extension OperationRecord {
    enum Columns: String, CaseIterable { case userId, applicationId, status, expiresAt }
}
