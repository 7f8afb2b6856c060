import LatchkeyContract

/// Writes an event's `data` for callbacks: the server layer, which knows the wire form, renders what
/// the domain reports (the domain knows no JSON).
public protocol CallbackRenderer: Sendable {
    /// The JSON of the event's `data` object.
    func data(of event: DomainEvent) -> [UInt8]
}

/// A registration's `state` changed (its activation included: `previous` nil).
public struct RegistrationStateChange: Sendable, Equatable {
    public var registrationId: String
    public var userId: String
    public var applicationId: String
    public var state: RegistrationState
    public var previous: RegistrationState?
}

extension DomainEvent {
    /// The callback event type the event is, and the application whose callbacks hear of it (nil: every application's).
    var callback: (type: CallbackEventType, applicationId: String?)? {
        switch self {
        case .operationChanged(let operation): (.operationStatusChanged, operation.applicationId)
        case .accountRecoveryChanged: (.accountRecoveryStateChanged, nil)
        case .registrationStateChanged(let change): (.registrationStateChanged, change.applicationId)
        case .onboardingStatusChanged(_, let applicationId, _): (.onboardingStatusChanged, applicationId)
        case .delivery, .withheldDelivery, .accountRecoveryCallback, .audit: nil
        }
    }
}

extension Latchkey {
    /// Where callback events' `data` is written from (set once by the server layer).
    public func setCallbackRenderer(_ renderer: CallbackRenderer) {
        callbackRenderer.withLock { $0 = renderer }
    }

    /// Writes the transaction's callback events in it; returns whether it wrote any.
    ///
    /// Nothing is announced that did not commit, nothing committed goes unannounced. Each is numbered by the store in commit order; its
    /// deliveries are made off the request path (`fanOutCallbackEvents`: by a worker, or by a listing that finds some not made yet). A
    /// callback hears only of events after it, so while the store has none nothing is written. Whether it has one is read with the
    /// transaction's first reads once this process has seen one (`callbacksInSight`); before, a store with round trips answers "none"
    /// and checks it with COMMIT (`StoreTransaction.noneMatch`: a callback there runs the transaction again, asking first), so a
    /// transaction pays no round trip for it either way.
    func writeCallbackEvents(_ tx: StoreTransaction, _ events: [DomainEvent]) throws -> Bool {
        guard let renderer = callbackRenderer.withLock({ $0 }), events.contains(where: { $0.callback != nil }),
            try !tx.noneMatch(CallbackRecord.any)
        else { return false }
        callbacksInSight.withLock { $0 = true }
        for event in events {
            guard let (type, applicationId) = event.callback else { continue }
            try tx.insertNumbered(
                CallbackEventRecord(
                    id: "evt_" + eventRandom.uuid(), seq: 0, type: type.rawValue, applicationId: applicationId, createdAt: now,
                    data: renderer.data(of: event), fannedOut: false))
        }
        return true
    }

    /// What a write transaction reads ahead once this process has seen a callback: whether the store has one.
    var callbackReads: [StoreRead] { callbacksInSight.withLock { $0 } ? [.rows(CallbackRecord.any)] : [] }

    /// Records a change of a registration's state, for callbacks.
    func registrationStateChanged(_ effects: Effects, _ registration: RegistrationRecord, from previous: RegistrationState?) {
        guard previous != registration.registrationState else { return }
        effects.append(
            .registrationStateChanged(
                RegistrationStateChange(
                    registrationId: registration.id, userId: registration.userId, applicationId: registration.applicationId,
                    state: registration.registrationState, previous: previous)))
    }
}
