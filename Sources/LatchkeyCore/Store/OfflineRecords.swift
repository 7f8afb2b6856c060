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
    enum Columns: String, CaseIterable { case operationId, registrationId }
}
