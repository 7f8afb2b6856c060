import LatchkeyContract

/// The newest QR payload made for one operation and one registration: its nonce is what an offline code must be made over (a newer
/// payload replaces it; a wrong code does not use it up).
struct OperationQRRecord: StoredRecord {
    static let table = "operation_qr"
    /// A random id: each payload is a new row, so the newest is the last inserted.
    var id: String
    var operationId: String
    var registrationId: String
    var nonce: String
    /// Whether the payload's flags were `B` (touchId and faceId may make the second part).
    var biometric: Bool
    var createdAt: Int64
}

extension OperationQRRecord {
    enum Columns: String, CaseIterable { case id, operationId, registrationId, nonce, biometric, createdAt }
    static let columns = Columns.allCases.map(\.rawValue)

    init(row: inout RowReader) throws {
        try self.init(
            id: row.text(), operationId: row.text(), registrationId: row.text(), nonce: row.text(), biometric: row.flag(), createdAt: row.integer())
    }

    func encode(into row: inout RowWriter) { row.put(id, operationId, registrationId, nonce, biometric, createdAt) }
}
