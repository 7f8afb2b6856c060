import LatchkeyContract

/// The server half inside one store transaction: every operation a device asks for (`ServerConnection`), with the transaction's writes and effects.
///
/// The `server/` methods run one operation a session; a simulated device runs its whole step in one
/// session, its own storage in the same transaction, so what it keeps and what the server keeps commit
/// together.
public struct ServerSession: ServerConnection {
    let core: Latchkey
    /// The open transaction (the simulated devices keep their state in it too).
    public let tx: StoreTransaction
    let effects: Effects

    var now: UnixTime { core.now }
    var random: RandomSource { core.random }

    /// Records an audit event for `caller`.
    func audit(
        _ type: AuditEventType, userId: String? = nil, registrationId: String? = nil, caller: Caller? = nil,
        detail: String? = nil, activationName: String? = nil
    ) throws {
        try core.audit(
            tx, effects, type, userId: userId, registrationId: registrationId, deviceId: caller?.deviceId, detail: detail,
            activationName: activationName, installationId: caller?.installationId)
    }

    /// Records what a device did on its own (a local deactivation), in this transaction.
    public func recordDeviceEvent(_ type: AuditEventType, registrationId: String, caller: Caller, detail: String?) throws {
        let owner = try tx.fetch(RegistrationRecord.self, id: registrationId)?.userId
        try audit(type, userId: owner, registrationId: registrationId, caller: caller, detail: detail)
    }
}

extension Latchkey {
    /// Runs `body` on the server half in one transaction; effects are published after commit.
    public func session<T>(_ body: (ServerSession) throws -> T) throws -> T {
        try transact { tx, effects in try body(ServerSession(core: self, tx: tx, effects: effects)) }
    }
}
