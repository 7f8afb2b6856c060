import LatchkeyContract

/// Something that happened which subscribers may be told of.
///
/// Emitted only after its transaction commits.
public enum DomainEvent: Sendable {
    /// A message left through the out-of-band channel (topic `delivery`).
    case delivery(OutboundMessage)
    /// A message built for an identifier that names no one, which never leaves: it goes where a sent one goes at the same cost
    /// (security property 11: whether an identifier belongs to an account is told by no answer's time), and everything that
    /// hears of events ignores it (no topic, no notification, no callback, no delivery).
    case withheldDelivery(OutboundMessage)
    /// An account-recovery state changed (topic `accountRecovery`).
    case accountRecoveryChanged(uid: String, status: AccountRecoveryStatus)
    /// The user opened an account-recovery link (topic `accountRecoveryCallback`).
    case accountRecoveryCallback(verificationCode: String, email: String?, phoneNumber: String?, link: String)
    /// A security event was recorded (topic `audit`).
    case audit(AuditEvent)
    /// An operation was created or its status changed (topic `operations`).
    case operationChanged(Operation)
    /// A registration's state changed (callbacks only).
    case registrationStateChanged(RegistrationStateChange)
    /// What `onboarding/status` answers for a process changed (callbacks only).
    case onboardingStatusChanged(processId: String, applicationId: String, status: OnboardingStatus)

    /// The subscription topic this event belongs to (nil: no notification, callbacks only).
    public var topic: EventTopic? {
        switch self {
        case .delivery: return .delivery
        case .accountRecoveryChanged: return .accountRecovery
        case .accountRecoveryCallback: return .accountRecoveryCallback
        case .audit: return .audit
        case .operationChanged: return .operations
        case .registrationStateChanged, .onboardingStatusChanged, .withheldDelivery: return nil
        }
    }
}

/// The topics a client may subscribe to.
public enum EventTopic: String, Sendable, CaseIterable {
    case delivery, accountRecovery, accountRecoveryCallback, operations, audit

    /// Topics only an operator may watch (closed by `--no-admin`).
    public var isAdminOnly: Bool { self == .delivery || self == .audit }
}

/// Collects what a transaction wants to tell the world once it has committed.
public final class Effects {
    public private(set) var events: [DomainEvent] = []
    public init() {}
    public func append(_ event: DomainEvent) { events.append(event) }
    func reset() { events.removeAll() }
}
