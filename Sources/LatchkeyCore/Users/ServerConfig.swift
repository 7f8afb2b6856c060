import LatchkeyContract

/// Server-wide lifetimes.
public struct ServerConfig: Sendable, Equatable {
    public var gracePeriodSeconds: Int64
    public var insecureWindowSeconds: Int64
    public var sessionLifetimeSeconds: Int64

    /// 72 hours, 7 days, 30 days.
    public static let defaults = ServerConfig(
        gracePeriodSeconds: 72 * 3600, insecureWindowSeconds: 7 * 86_400,
        sessionLifetimeSeconds: 30 * 86_400)
}

extension ServerConfigRecord {
    /// The one row's id.
    static let serverId = "server"
}

extension Latchkey {
    /// The read of the server's settings, for a read set.
    static let serverConfigRead = StoreRead.row(ServerConfigRecord.self, id: ServerConfigRecord.serverId)

    func serverConfig(_ tx: StoreTransaction) throws -> ServerConfig {
        guard let record = try tx.fetch(ServerConfigRecord.self, id: ServerConfigRecord.serverId) else { return .defaults }
        return ServerConfig(
            gracePeriodSeconds: record.gracePeriodSeconds, insecureWindowSeconds: record.insecureWindowSeconds,
            sessionLifetimeSeconds: record.sessionLifetimeSeconds)
    }

    /// Changes the server-wide lifetimes; nil keeps a value.
    public func configureServer(gracePeriodSeconds: Int64?, insecureWindowSeconds: Int64?, sessionLifetimeSeconds: Int64?) throws -> ServerConfig {
        try transact { tx, effects in
            // A shorter session lifetime reads the sessions it may end: stated with the configuration's row, one round trip.
            let at = now
            tx.willRead(
                [Self.serverConfigRead]
                    + (sessionLifetimeSeconds.map { [.rows(Self.sessionsYoungerThan($0, now: at))] } ?? []))
            var config = try serverConfig(tx)
            if let value = gracePeriodSeconds { config.gracePeriodSeconds = value }
            if let value = insecureWindowSeconds { config.insecureWindowSeconds = value }
            if let value = sessionLifetimeSeconds {
                if value < config.sessionLifetimeSeconds { try endSessions(tx, olderThan: value, at: at) }
                config.sessionLifetimeSeconds = value
            }
            try tx.save(
                ServerConfigRecord(
                    id: ServerConfigRecord.serverId, gracePeriodSeconds: config.gracePeriodSeconds,
                    insecureWindowSeconds: config.insecureWindowSeconds,
                    sessionLifetimeSeconds: config.sessionLifetimeSeconds))
            try audit(tx, effects, .serverConfigured)
            return config
        }
    }
}
