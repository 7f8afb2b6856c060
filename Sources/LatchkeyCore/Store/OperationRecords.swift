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
    var createdAt: Int64 { get }
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
    /// `ServerKeyAgreements`, sealed (`serverKeyAgreements`); nil until the first QR payload.
    var sealedAgreements: [UInt8]?

    init(id: String, sealedPrivateKey: [UInt8], publicKey: [UInt8], createdAt: Int64) {
        (self.id, self.sealedPrivateKey, self.publicKey, self.createdAt) = (id, sealedPrivateKey, publicKey, createdAt)
    }
}

// Each record's row, coded as Records+Rows.swift codes the others'.

extension OperationTemplateRecord {
    enum Columns: String, CaseIterable {
        case id, applicationId, name, title, message, data, attributes, maxFailureCount, ttlSeconds, allowedMethods, createdAt
    }
    static let columns = Columns.allCases.map(\.rawValue)

    init(row: inout RowReader) throws {
        try self.init(
            id: row.text(), applicationId: row.text(), name: row.text(), title: row.text(), message: row.text(), data: row.text(),
            attributes: row.bytes(), maxFailureCount: row.int(), ttlSeconds: row.integer(), allowedMethods: row.text(), createdAt: row.integer())
    }

    func encode(into row: inout RowWriter) {
        row.put(id, applicationId, name, title, message, data, attributes, maxFailureCount, ttlSeconds, allowedMethods, createdAt)
    }
}

extension OperationRecord {
    enum Columns: String, CaseIterable {
        case id, userId, applicationId, registrationId, template, data, title, message, attributes, status, failureCount, maxFailureCount,
            allowedMethods, createdAt, expiresAt, decidedAt, approvedWith, rejectReason, externalId
    }
    static let columns = Columns.allCases.map(\.rawValue)

    init(row: inout RowReader) throws {
        try self.init(
            id: row.text(), userId: row.text(), applicationId: row.text(), registrationId: row.optionalText(), template: row.text(),
            data: row.text(), title: row.text(), message: row.text(), attributes: row.bytes(), status: row.text(), failureCount: row.int(),
            maxFailureCount: row.int(), allowedMethods: row.text(), createdAt: row.integer(), expiresAt: row.integer(),
            decidedAt: row.optionalInteger(), approvedWith: row.optionalText(), rejectReason: row.optionalText(), externalId: row.optionalText())
    }

    func encode(into row: inout RowWriter) {
        row.put(
            id, userId, applicationId, registrationId, template, data, title, message, attributes, status, failureCount, maxFailureCount,
            allowedMethods, createdAt, expiresAt, decidedAt, approvedWith, rejectReason, externalId)
    }
}

/// Both kinds of server key have the same columns.
enum ServerKeyColumns: String, CaseIterable { case id, sealedPrivateKey, publicKey, createdAt }

extension ServerKeyRecord {
    static var columns: [String] { ServerKeyColumns.allCases.map(\.rawValue) }

    init(row: inout RowReader) throws {
        try self.init(id: row.text(), sealedPrivateKey: row.bytes(), publicKey: row.bytes(), createdAt: row.integer())
    }

    func encode(into row: inout RowWriter) { row.put(id, sealedPrivateKey, publicKey, createdAt) }
}

extension RegistrationKeyRecord {
    /// A server key's columns, and the agreements made with it.
    enum Columns: String, CaseIterable { case id, sealedPrivateKey, publicKey, createdAt, sealedAgreements }
    static let columns = Columns.allCases.map(\.rawValue)

    init(row: inout RowReader) throws {
        try self.init(id: row.text(), sealedPrivateKey: row.bytes(), publicKey: row.bytes(), createdAt: row.integer())
        sealedAgreements = try row.optionalBytes()
    }

    func encode(into row: inout RowWriter) { row.put(id, sealedPrivateKey, publicKey, createdAt, sealedAgreements) }
}
