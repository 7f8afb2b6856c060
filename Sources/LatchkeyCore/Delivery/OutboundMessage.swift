import LatchkeyContract

/// The channel a message leaves by.
public enum DeliveryChannel: String, Sendable, CaseIterable { case email, sms }

/// Why a message was sent.
public enum DeliveryPurpose: String, Sendable, CaseIterable {
    case onboardingOtp, accountRecovery, passwordReset, securityNotice
}

/// A message in the simulated email/SMS channel.
///
/// It holds a one-time code only because the channel would carry it.
public struct OutboundMessage: Sendable, Equatable {
    public var id: String
    public var channel: DeliveryChannel
    public var to: String
    public var purpose: DeliveryPurpose
    public var code: String?
    public var link: String?
    public var text: String
    public var sentAt: UnixTime
    /// For an account-recovery message: the identifier the request named (for the callback).
    public var requestedEmail: String?
    public var requestedPhoneNumber: String?
}
