import LatchkeyContract

/// The kinds of security event the audit log records.
public enum AuditEventType: String, Sendable, CaseIterable {
    case userCreated, applicationConfigured, serverConfigured, activationCodeCreated
    case activationCodeRejected, activationStarted, activationCompleted
    case authenticationSucceeded, authenticationFailed, registrationLocked, registrationUnlocked
    case registrationLockedByAdmin, registrationRemoved, registrationDeactivated
    case authMethodAdded, authMethodUpdated, authMethodDeactivated
    case pushedAuthenticationCreated, pushedAuthenticationApproved, pushedAuthenticationRejected
    case tokenIssued, tokenUsed, tokenRejected
    case recoveryCodeSet, recoveryDeleted, recoveryCompleted, recoveryCodeRejected, recoveryLocked
    case loginSucceeded, loginFailed, logout
    case accountRecoveryStarted, accountRecoveryCancelled, accountRecoveryInsecure, accountRecoveryExpired
    case passwordChanged, passkeysReset
    case passkeyCreated, passkeyRemoved, passkeyLogin, passkeyRejected, passkeyCloneSuspected
    case onboardingStarted, onboardingOtpSent, onboardingOtpWithheld, onboardingOtpRejected, onboardingFailed, onboardingCancelled
    case onboardingActivated, verificationCompleted
    case resetRequested, resetCodeRejected, resetCompleted
    case deliveryFailed
    case proofRejected
    case operationTemplateConfigured, operationCreated, operationApproved, operationRejected, operationFailed, operationExpired
    case operationCanceled, operationApprovalFailed
    case callbackConfigured, callbackRemoved, callbackFailed
}

/// One recorded security event: when, what, and which ids — never a secret.
public struct AuditEvent: Sendable, Equatable {
    public var at: UnixTime
    public var type: AuditEventType
    public var userId: String?
    public var registrationId: String?
    public var deviceId: String?
    /// A short, secret-free description (a method name, a count, a channel).
    public var detail: String?
    /// The name of the activation the event concerns.
    public var activationName: String?
    /// The app installation that asked (devices outside the process).
    public var installationId: String?
    /// The Relying Party check a refused passkey credential failed (`passkeyRejected`).
    public var check: String?
    /// The operation the event concerns.
    public var operationId: String?
    /// A rejection whose hash was not the operation's: the user saw something else (a fraud signal).
    public var dataMismatch: Bool?
}

// A `passkeyRejected` event keeps its `check` in the `detail` column (it has no detail of its own).
// An event about an identifier that names nobody, where an identifier that names someone records
// its user, is recorded with `Latchkey.nobody` as its user (`Latchkey.audit`): the row and its index
// entries cost what a user's do (security property 11), and it reads back as an event of no user.
extension AuditRecord {
    init(id: String, event: AuditEvent) {
        activationName = event.activationName
        installationId = event.installationId
        self.id = id
        at = event.at
        type = event.type.rawValue
        userId = event.userId
        registrationId = event.registrationId
        deviceId = event.deviceId
        detail = event.check ?? event.detail
        operationId = event.operationId
        dataMismatch = event.dataMismatch
    }

    var event: AuditEvent? {
        guard let type = AuditEventType(rawValue: type) else { return nil }
        let check = type == .passkeyRejected ? detail : nil
        return AuditEvent(
            at: at, type: type, userId: userId == Latchkey.nobody ? nil : userId, registrationId: registrationId, deviceId: deviceId,
            detail: check == nil ? detail : nil,
            activationName: activationName, installationId: installationId, check: check, operationId: operationId,
            dataMismatch: dataMismatch)
    }
}
