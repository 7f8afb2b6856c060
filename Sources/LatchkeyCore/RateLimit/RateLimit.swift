import LatchkeyContract

/// A limit of `limit` events per `window` seconds for one subject.
struct RateLimit {
    var scope: String
    var limit: Int
    var window: Int64

    /// Seconds until another event is allowed, or nil when it is allowed now.
    func retryAfter(_ tx: StoreTransaction, subject: String, now: UnixTime) throws -> Int64? {
        let recent = try tx.fetchAll(
            RateEventRecord.self,
            where: [
                .equals(RateEventRecord.Columns.scope, scope), .equals(RateEventRecord.Columns.subject, subject),
                StoreFilter(RateEventRecord.Columns.at, .greaterOrEqual, .int(now - window + 1)),
            ])
        guard recent.count >= limit, let oldest = recent.map(\.at).min() else { return nil }
        return max(oldest + window - now, 1)
    }

    func record(_ tx: StoreTransaction, subject: String, now: UnixTime, id: String) throws {
        try tx.save(RateEventRecord(id: id, scope: scope, subject: subject, at: now))
    }

    func clear(_ tx: StoreTransaction, subject: String) throws {
        try tx.deleteAll(
            RateEventRecord.self, where: [.equals(RateEventRecord.Columns.scope, scope), .equals(RateEventRecord.Columns.subject, subject)])
    }
}
