import LatchkeyContract

/// A limit of `limit` events per `window` seconds for one subject.
struct RateLimit {
    var scope: String
    var limit: Int
    var window: Int64

    /// The read of a subject's newest `limit` events.
    ///
    /// An event is recorded only while fewer than
    /// `limit` are in the window, and events are recorded in time order, so these hold every one
    /// in the window; the read does not depend on the time, so a transaction states it at its start.
    func events(of subject: String) -> StoreQuery<RateEventRecord> {
        StoreQuery(
            where: [.equals(RateEventRecord.Columns.scope, scope), .equals(RateEventRecord.Columns.subject, subject)], newestFirst: true,
            limit: limit)
    }

    /// Seconds until another event is allowed, or nil when it is allowed now.
    func retryAfter(_ tx: StoreTransaction, subject: String, now: UnixTime) throws -> Int64? {
        let recent = try tx.fetchAll(events(of: subject)).filter { $0.at >= now - window + 1 }
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
