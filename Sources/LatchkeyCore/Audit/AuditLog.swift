import LatchkeyContract

extension Latchkey {
    /// Recorded security events, oldest first, optionally for one user or registration;
    /// `limit` keeps the newest.
    public func auditEvents(userId: String?, registrationId: String?, limit: Int?) throws -> [AuditEvent] {
        var filters: [StoreFilter] = []
        if let userId { filters.append(.equals(AuditRecord.Columns.userId, userId)) }
        if let registrationId { filters.append(.equals(AuditRecord.Columns.registrationId, registrationId)) }
        let records = try inspect { tx in
            try tx.fetchAll(AuditRecord.self, where: filters, newestFirst: true, limit: limit)
        }
        return records.reversed().compactMap(\.event)
    }

    /// Records an event that happened outside any other transaction (a failed delivery command).
    /// - Throws: a store failure (nothing recorded; the caller keeps the event to record it later).
    public func recordAudit(_ type: AuditEventType, userId: String? = nil, detail: String? = nil) throws {
        try transact { tx, effects in try audit(tx, effects, type, userId: userId, detail: detail) }
    }
}
