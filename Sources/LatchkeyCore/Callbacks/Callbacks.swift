import LatchkeyContract
import Synchronization

/// The event types a callback may ask for.
public enum CallbackEventType: String, Sendable, CaseIterable {
    case registrationStateChanged = "registration.stateChanged"
    case operationStatusChanged = "operation.statusChanged"
    case accountRecoveryStateChanged = "accountRecovery.stateChanged"
    case onboardingStatusChanged = "onboarding.statusChanged"
}

/// A configured callback as the operator sees it; `secret` only in the answer that made it.
public struct Callback: Sendable, Equatable {
    public var callbackId: String
    public var url: String
    public var events: [CallbackEventType]
    public var applicationId: String
    /// `whsec_…`: set only when `admin/configureCallback` made or replaced the secret.
    public var secret: String?
}

/// What `admin/configureCallback` is given.
public struct NewCallback: Sendable {
    public var url: String
    public var events: [CallbackEventType]
    /// Replaces this callback (unknown: `notFound`).
    public var callbackId: String?
    /// `whsec_` and the standard base64 of 24–64 bytes (nil: a new one is made; a replace keeps the current one).
    public var secret: String?
    public var applicationId: String?

    public init(url: String, events: [CallbackEventType], callbackId: String? = nil, secret: String? = nil, applicationId: String? = nil) {
        self.url = url
        self.events = events
        self.callbackId = callbackId
        self.secret = secret
        self.applicationId = applicationId
    }
}

/// How this process treats callback addresses (`--callback-allow-private`) and resolves host names.
public struct CallbackPolicy: Sendable {
    public var allowPrivate: Bool
    public var resolver: HostResolver

    public init(allowPrivate: Bool = false, resolver: HostResolver = SystemHostResolver()) {
        self.allowPrivate = allowPrivate
        self.resolver = resolver
    }

    /// The address an attempt connects to: `host` itself when it is an address, else one it resolves to (IPv4 first); refused when any
    /// address it is or resolves to is not allowed — for plain `http://` (`loopbackOnly`), when any is not a loopback address.
    public func destination(of host: String, loopbackOnly: Bool = false) -> Result<String, CallbackAttemptError> {
        if CallbackAddress.isLiteral(host) {
            if loopbackOnly, !CallbackAddress.isLoopbackHost(host) { return .failure(.addressNotAllowed) }
            return !allowPrivate && CallbackAddress.isRestricted(host) ? .failure(.addressNotAllowed) : .success(host)
        }
        guard let addresses = resolver.addresses(of: host), let first = addresses.first(where: { CallbackAddress.ipv4($0) != nil }) ?? addresses.first
        else { return .failure(.resolutionFailed) }
        if loopbackOnly, !addresses.allSatisfy(CallbackAddress.isLoopbackHost) { return .failure(.addressNotAllowed) }
        if !allowPrivate, addresses.contains(where: CallbackAddress.isRestricted) { return .failure(.addressNotAllowed) }
        return .success(first)
    }

    /// The first address `host` is or resolves to that is not allowed (nil: all allowed; a name that does not resolve has none).
    public func restrictedAddress(of host: String) -> String? {
        guard !allowPrivate else { return nil }
        if CallbackAddress.isLiteral(host) { return CallbackAddress.isRestricted(host) ? host : nil }
        return (resolver.addresses(of: host) ?? []).first(where: CallbackAddress.isRestricted)
    }
}

/// A Standard Webhooks secret: `whsec_` and the standard, padded base64 of 24–64 bytes (the key).
public enum WebhookSecret {
    public static let prefix = "whsec_"

    /// The key a secret names, or nil for a secret of another form.
    public static func key(_ secret: String) -> [UInt8]? {
        guard secret.hasPrefix(prefix), let key = Base64.decode(String(secret.dropFirst(prefix.count))), (24...64).contains(key.count) else {
            return nil
        }
        return key
    }

    public static func secret(_ key: [UInt8]) -> String { prefix + Base64.encode(key) }
}

extension CallbackEventRecord {
    /// The newest events by insertion (their numbers, drawn at commit, may come in another order: the
    /// largest of the last 64 is the last number).
    static let newest = StoreQuery<CallbackEventRecord>(where: [], newestFirst: true, limit: 64)
}

extension CallbackDeliveryRecord {
    /// A callback's pending deliveries.
    static let pendingOf = KeyedQuery<CallbackDeliveryRecord>(
        Columns.callbackId, and: [.equals(Columns.status, CallbackDeliveryStatus.pending.rawValue)])
    /// An event's first pending delivery (whether it has one).
    static let pendingOfEvent = KeyedQuery<CallbackDeliveryRecord>(
        Columns.eventId, and: [.equals(Columns.status, CallbackDeliveryStatus.pending.rawValue)], limit: 1)
}

extension CallbackRecord {
    /// A callback, any (whether the store has one).
    static let any = StoreQuery<CallbackRecord>(where: [], limit: 1)
    /// Every callback.
    static let all = StoreQuery<CallbackRecord>(where: [])

    var eventTypes: [CallbackEventType] { events.split(separator: "\n").compactMap { CallbackEventType(rawValue: String($0)) } }

    func callback(secret: String? = nil) -> Callback {
        Callback(callbackId: id, url: url, events: eventTypes, applicationId: applicationId, secret: secret)
    }
}

extension Latchkey {
    /// Where the delivery worker and configuration check callback addresses.
    public var callbackPolicy: CallbackPolicy {
        get { callbackPolicyBox.withLock { $0 } }
        set { callbackPolicyBox.withLock { $0 = newValue } }
    }

    /// Creates a callback, or replaces one: a replace applies to every later attempt (pending ones included) and drops pending deliveries
    /// of event types it no longer lists, and, moving the callback to another application, those of events of the application it leaves
    /// (an event belongs to its application's callbacks; `accountRecovery.stateChanged` to every application's); without a secret it
    /// keeps the current one.
    /// - Throws: `invalidParams` (`url`, `secret`), `notFound` (`callback`, application).
    public func configureCallback(_ new: NewCallback) throws -> Callback {
        let url: CallbackURL
        do { url = try CallbackURL(new.url) } catch { throw DomainError.invalid(.callbackURL, error.message) }
        var key: [UInt8]?
        if let secret = new.secret {
            guard let decoded = WebhookSecret.key(secret) else {
                throw DomainError.invalid(.callbackSecret, "must be whsec_ and the standard base64 of 24 to 64 bytes")
            }
            key = decoded
        }
        // Resolved last: the cheap checks first.
        if callbackPolicy.restrictedAddress(of: url.host) != nil {
            throw DomainError.invalid(
                .callbackURL, "reaches a link-local, private or unspecified address, refused without --callback-allow-private")
        }
        var events: [CallbackEventType] = []
        for type in new.events where !events.contains(type) { events.append(type) }
        let configured = try transact { tx, effects in
            tx.willRead(
                [.row(ApplicationRecord.self, id: new.applicationId ?? ApplicationConfig.defaultApplicationId)]
                    + (new.callbackId.map { [.row(CallbackRecord.self, id: $0), .rows(CallbackDeliveryRecord.pendingOf.query($0))] }
                        ?? [.rows(CallbackEventRecord.newest)]))
            let app = try application(tx, new.applicationId)
            var record: CallbackRecord
            var answerSecret: String?
            if let callbackId = new.callbackId {
                guard let existing = try tx.fetch(CallbackRecord.self, id: callbackId) else { throw DomainError.notFound("callback") }
                record = existing
                if new.applicationId != nil { record.applicationId = app.applicationId }
                record.url = url.text
                record.events = events.map(\.rawValue).joined(separator: "\n")
                if let key {
                    record.sealedSecret = try seal(key, .callbackSecret, rowId: record.id)
                    answerSecret = WebhookSecret.secret(key)
                }
                // Moved to another application, it drops the deliveries of events of the one it leaves (an event of every
                // application's, nil, stays; one gone goes).
                let moved = !record.applicationId.isSameId(as: existing.applicationId)
                func leftBehind(_ delivery: CallbackDeliveryRecord) throws -> Bool {
                    guard let event = try tx.fetch(CallbackEventRecord.self, id: delivery.eventId) else { return true }
                    return event.applicationId.map { !$0.isSameId(as: record.applicationId) } ?? false
                }
                let listed = Set(events.map(\.rawValue))
                for delivery in try tx.fetchAll(CallbackDeliveryRecord.pendingOf, record.id) {
                    if try !listed.contains(delivery.type) || moved && leftBehind(delivery) {
                        try tx.delete(CallbackDeliveryRecord.self, id: delivery.id)
                    }
                }
            } else {
                let id = random.identifier("cb")
                let made = key ?? random.bytes(32)
                answerSecret = WebhookSecret.secret(made)
                record = CallbackRecord(
                    id: id, applicationId: app.applicationId, url: url.text, events: events.map(\.rawValue).joined(separator: "\n"),
                    sealedSecret: try seal(made, .callbackSecret, rowId: id), afterSeq: try lastCallbackEventSeq(tx), createdAt: now)
            }
            try tx.save(record)
            try audit(tx, effects, .callbackConfigured, detail: record.id)
            return record.callback(secret: answerSecret)
        }
        // A new secret: this process tries it at once (one it could not unseal waited).
        if new.secret != nil { _ = callbacksUnreadable.withLock { $0.removeValue(forKey: configured.callbackId) } }
        callbacksInSight.withLock { $0 = true }
        wakeCallbackWorker()
        return configured
    }

    /// The callbacks of an application (no secrets).
    /// - Throws: `notFound` (application).
    public func callbacks(applicationId: String?) throws -> [Callback] {
        try inspect { tx in
            let app = try application(tx, applicationId)
            return try tx.fetchAll(CallbackRecord.self, where: [.equals(CallbackRecord.Columns.applicationId, app.applicationId)]).map {
                $0.callback()
            }
        }
    }

    /// Removes a callback; its pending deliveries are dropped.
    /// - Throws: `notFound` (`callback`).
    public func removeCallback(callbackId: String) throws {
        try transact { tx, effects in
            tx.willRead([.row(CallbackRecord.self, id: callbackId)])
            guard try tx.fetch(CallbackRecord.self, id: callbackId) != nil else { throw DomainError.notFound("callback") }
            try tx.delete(CallbackRecord.self, id: callbackId)
            try tx.deleteAll(
                CallbackDeliveryRecord.self,
                where: [
                    .equals(CallbackDeliveryRecord.Columns.callbackId, callbackId),
                    .equals(CallbackDeliveryRecord.Columns.status, CallbackDeliveryStatus.pending.rawValue),
                ])
            try audit(tx, effects, .callbackRemoved, detail: callbackId)
        }
    }

    /// The largest event number so far (a new callback hears of later events only).
    private func lastCallbackEventSeq(_ tx: StoreTransaction) throws -> Int64 {
        try tx.fetchAll(CallbackEventRecord.newest).map(\.seq).max() ?? 0
    }
}
