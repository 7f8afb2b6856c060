import LatchkeyContract

extension Latchkey {
    /// The user opens a message: its link (nil for one without).
    ///
    /// Opening an account-recovery message fires the deep-link callback with its code.
    /// - Throws: `notFound` (message).
    public func openMessage(_ messageId: String) throws -> String? {
        guard let message = sentMessages.message(id: messageId) else { throw DomainError.notFound("message") }
        if message.purpose == .accountRecovery, let code = message.code, let link = message.link {
            let effects = Effects()
            effects.append(
                .accountRecoveryCallback(
                    verificationCode: code, email: message.requestedEmail,
                    phoneNumber: message.requestedPhoneNumber, link: link))
            publishOutside(effects)
        }
        return message.link
    }
}
