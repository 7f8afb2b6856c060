import LatchkeyContract


/// An onboarding process started by one device or app installation (`deviceId` names it): the identity it matched (if any), its OTP as a keyed
/// hash, and its counters.
struct OnboardingProcessRecord: StoredRecord {
    static let table = "onboarding_process"
    var id: String
    var deviceId: String
    /// The matched user; nil when the credentials matched nobody (every OTP is then wrong).
    var userId: String?
    var applicationId: String
    var channel: String?
    var address: String?
    var otpHash: String?
    var otpExpiresAt: Int64?
    var lastSentAt: Int64?
    var wrongOtps: Int
    var status: String
    var canRestoreSession: Bool
    /// The process (instance) that started it; without `canRestoreSession` it lives only there.
    var instance: String
    /// Set once the OTP was accepted (activation may proceed).
    var otpAccepted: Bool
    var registrationId: String?
    /// Cancelled or replaced processes are closed.
    var closed: Bool
    var createdAt: Int64

    var onboardingStatus: OnboardingStatus { OnboardingStatus(rawValue: status) ?? .failed }

    static let lifetime: Int64 = 3 * 3600
    static let otpLifetime: Int64 = 300
    static let resendInterval: Int64 = 30
    static let maxWrongOtps = 5
}
