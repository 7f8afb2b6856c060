import LatchkeyContract

// The rows of callbacks (issue 39): the URLs an operator configured, the events written in the
// transactions of the changes they report, and the deliveries of each event to each callback.
// Read side by side with Migrations.swift (v8) and PostgresMigrations.swift (v9).

/// A URL the operator configured to hear of events of some types in one application.
struct CallbackRecord: StoredRecord {
    static let table = "callback"
    var id: String
    var applicationId: String
    var url: String
    /// One event type a line.
    var events: String
    /// The Standard Webhooks key (the secret's decoded bytes), sealed.
    var sealedSecret: [UInt8]
    /// The last event number when it was configured: it hears of later events only.
    var afterSeq: Int64
    var createdAt: Int64
}

/// An event, written in the same transaction as the change it reports; numbered in commit order
/// (`seq`, assigned by the store when it commits) and fanned out to the callbacks that ask for it.
struct CallbackEventRecord: NumberedRecord {
    static let table = "callback_event"
    /// The event's id: `webhook-id`, the same on every attempt.
    var id: String
    /// Commit order over the whole store (0 until the store numbers it).
    var seq: Int64
    var type: String
    /// The application it belongs to (nil: every application's, `accountRecovery.stateChanged`).
    var applicationId: String?
    var createdAt: Int64
    /// The event's `data`, as the server layer wrote it (JSON).
    var data: [UInt8]
    /// Whether its deliveries were made.
    var fannedOut: Bool
}

/// One event's delivery to one callback: its attempts and where it stands.
struct CallbackDeliveryRecord: StoredRecord {
    static let table = "callback_delivery"
    var id: String
    var callbackId: String
    var eventId: String
    var eventSeq: Int64
    var type: String
    /// `pending`, `delivered` or `failed`.
    var status: String
    var attempts: Int
    var lastAttemptAt: Int64?
    var lastStatusCode: Int?
    var lastError: String?
    var nextAttemptAt: Int64?
    /// Until when the process attempting it holds it (another takes it over after).
    var leaseUntil: Int64?
    var createdAt: Int64
    /// When the last attempt began, in milliseconds (`lastAttemptAt` is its second): a retry on the schedule begins no sooner than its
    /// delay after it, in whichever process takes it.
    var lastAttemptStartedMilliseconds: Int64?
}

// Each record's row, coded as Records+Rows.swift codes the others'.

extension CallbackRecord {
    enum Columns: String, CaseIterable { case id, applicationId, url, events, sealedSecret, afterSeq, createdAt }
    static let columns = Columns.allCases.map(\.rawValue)

    init(row: inout RowReader) throws {
        try self.init(
            id: row.text(), applicationId: row.text(), url: row.text(), events: row.text(), sealedSecret: row.bytes(), afterSeq: row.integer(),
            createdAt: row.integer())
    }

    func encode(into row: inout RowWriter) { row.put(id, applicationId, url, events, sealedSecret, afterSeq, createdAt) }
}

extension CallbackEventRecord {
    /// The first `limit` events not fanned out yet, in insertion order.
    static func waiting(limit: Int) -> StoreQuery<CallbackEventRecord> { StoreQuery(where: [.equals(Columns.fannedOut, false)], limit: limit) }

    enum Columns: String, CaseIterable { case id, seq, type, applicationId, createdAt, data, fannedOut }
    static let columns = Columns.allCases.map(\.rawValue)

    init(row: inout RowReader) throws {
        try self.init(
            id: row.text(), seq: row.integer(), type: row.text(), applicationId: row.optionalText(), createdAt: row.integer(), data: row.bytes(),
            fannedOut: row.flag())
    }

    func encode(into row: inout RowWriter) { row.put(id, seq, type, applicationId, createdAt, data, fannedOut) }
}

extension CallbackDeliveryRecord {
    enum Columns: String, CaseIterable {
        case id, callbackId, eventId, eventSeq, type, status, attempts, lastAttemptAt, lastStatusCode, lastError, nextAttemptAt, leaseUntil,
            createdAt, lastAttemptStartedMilliseconds
    }
    static let columns = Columns.allCases.map(\.rawValue)

    init(row: inout RowReader) throws {
        try self.init(
            id: row.text(), callbackId: row.text(), eventId: row.text(), eventSeq: row.integer(), type: row.text(), status: row.text(),
            attempts: row.int(), lastAttemptAt: row.optionalInteger(), lastStatusCode: row.optionalInt(), lastError: row.optionalText(),
            nextAttemptAt: row.optionalInteger(), leaseUntil: row.optionalInteger(), createdAt: row.integer(),
            lastAttemptStartedMilliseconds: row.optionalInteger())
    }

    func encode(into row: inout RowWriter) {
        row.put(
            id, callbackId, eventId, eventSeq, type, status, attempts, lastAttemptAt, lastStatusCode, lastError, nextAttemptAt, leaseUntil,
            createdAt, lastAttemptStartedMilliseconds)
    }
}
