import LatchkeyContract

/// The new passkey of a reset, made by an authenticator from `reset/passkeyCreationOptions`.
public struct ResetPasskey: Sendable {
    public var ceremonyId: String
    public var response: RegistrationResponse
    public var friendlyName: String?

    public init(ceremonyId: String, response: RegistrationResponse, friendlyName: String?) {
        self.ceremonyId = ceremonyId
        self.response = response
        self.friendlyName = friendlyName
    }
}

extension Latchkey {
    /// Creation options for the passkey a reset will register.
    ///
    /// The account-recovery code is checked as `resetPasskeys` checks it (a wrong one counts) and not consumed.
    /// - Throws: the code errors, `notFound` (application).
    public func resetPasskeyCreationOptions(
        _ identifier: UserIdentifier, code: String, applicationId: String?
    ) throws
        -> CredentialCreationOptions
    {
        try transact { tx, effects in
            tx.willRead(resetCodeReads(identifier) + [.row(ApplicationRecord.self, id: applicationId ?? ApplicationConfig.defaultApplicationId)])
            return try resetPasskeyCreationOptions(tx, effects, identifier, code: code, applicationId: applicationId)
        }
    }

    /// `applicationId` nil: the `default` application, or with `codeApplication` the one the code
    /// was asked for.
    func resetPasskeyCreationOptions(
        _ tx: StoreTransaction, _ effects: Effects, _ identifier: UserIdentifier, code: String,
        applicationId: String?, codeApplication: Bool = false
    ) throws -> CredentialCreationOptions {
        // A named application is checked before the code, as every method that takes one does: an unknown one counts no wrong try.
        let named = try applicationId.map { try application(tx, $0) }
        let (record, user) = try checkResetCode(tx, effects, identifier, code: code, kind: .accountRecovery, consume: false)
        let app = try named ?? application(tx, codeApplication ? record.applicationId : nil)
        // The ceremony lives while this code does: used up or replaced, it is void.
        let ceremony = try openCeremony(
            tx, .reset, applicationId: app.applicationId, userId: user.id, named: true, openedBy: record.id)
        var options = try creationOptions(tx, ceremony, user, app)
        // Every old passkey goes with the reset: none is excluded.
        options.excludeCredentials = []
        return options
    }

    /// Checks an account-recovery code as `resetPasskeys` checks it first (a wrong one counts), and writes nothing else: for a
    /// reset whose new passkey cannot be made (an unknown phone), so that the code is still checked before anything else.
    /// - Throws: the code errors.
    public func checkAccountRecoveryCode(_ identifier: UserIdentifier, code: String) throws {
        try transact { tx, effects in
            tx.willRead(resetCodeReads(identifier))
            _ = try checkResetCode(tx, effects, identifier, code: code, kind: .accountRecovery, consume: false)
        }
    }

    /// Removes every passkey of the user and registers the new one (if given), with an account-recovery code.
    ///
    /// The code is checked first (a wrong one counts), then the ceremony (void once the code that
    /// opened it was used up or replaced), then the credential; a credential that fails its checks
    /// uses up the ceremony only. Every session of the user ends, as after a password change.
    /// - Throws: the code errors (a password-reset code counts as a wrong try), `noSessionInProgress`, `sessionExpired`, `passkeyInvalid`,
    ///   `alreadyExists`.
    public func resetPasskeys(_ identifier: UserIdentifier, code: String, newPasskey: ResetPasskey?) throws -> [Passkey] {
        try transact { tx, effects in
            tx.willRead(resetPasskeysReads(identifier, newPasskey))
            return try resetPasskeys(tx, effects, identifier, code: code, newPasskey: newPasskey)
        }
    }

    /// What a reset whose new passkey a simulated phone makes in the same call reads before the
    /// passkey is made: the code's reads, and every application (the phone's browser picks its
    /// origin among them, `defaultPasskeyOrigin`).
    public func resetReads(_ identifier: UserIdentifier) -> [StoreRead] {
        resetCodeReads(identifier) + [.rows(StoreQuery<ApplicationRecord>(where: []))]
    }

    /// What `resetPasskeys` reads: the code's reads, and the new passkey's ceremony.
    func resetPasskeysReads(_ identifier: UserIdentifier, _ newPasskey: ResetPasskey?) -> [StoreRead] {
        resetCodeReads(identifier) + (newPasskey.map { Self.ceremonyReads(key: ceremonyKey($0.ceremonyId)) } ?? [])
    }

    func resetPasskeys(
        _ tx: StoreTransaction, _ effects: Effects, _ identifier: UserIdentifier, code: String,
        newPasskey: ResetPasskey?
    ) throws -> [Passkey] {
        let (code, user) = try checkResetCode(tx, effects, identifier, code: code, kind: .accountRecovery, consume: false)
        var replacement: PasskeyRecord?
        if let newPasskey {
            // Another user's ceremony is foreign: unknown to this caller at any age (checked before its expiry).
            let ceremony = try liveCeremony(tx, key: ceremonyKey(newPasskey.ceremonyId), .reset) { !$0.userId.isSameId(as: user.id) }
            try requireOpenerLive(ceremony) { $0 == code.id }
            let app = try application(tx, ceremony.applicationId)
            try tx.delete(PasskeyCeremonyRecord.self, id: ceremony.id)
            let verified = try checkRegistration(
                tx, effects, newPasskey.response, ceremony: ceremony, party: app.relyingParty,
                userId: user.id)
            try requireNewCredentialId(tx, verified.credentialId)
            replacement = PasskeyRecord(
                verified, userId: user.id, friendlyName: newPasskey.friendlyName ?? Self.defaultPasskeyName, rpId: app.relyingParty.rpId,
                at: now)
        }
        try tx.deleteAll(PasskeyRecord.self, where: [.equals(PasskeyRecord.Columns.userId, user.id)])
        // As a password change: every session ends (and with them the creation ceremonies they opened).
        try tx.deleteAll(UserSessionRecord.self, where: [.equals(UserSessionRecord.Columns.userId, user.id)])
        if let replacement { try tx.save(replacement) }
        // The code is used: it and every other outstanding code of the user die.
        try tx.deleteAll(ResetCodeRecord.self, where: [.equals(ResetCodeRecord.Columns.userId, user.id)])
        try audit(tx, effects, .passkeysReset, userId: user.id, detail: replacement?.id)
        try audit(tx, effects, .resetCompleted, userId: user.id, detail: "passkeys")
        sendSecurityNotice(effects, to: user, "The passkeys of your account were reset. If this was not you, contact support.")
        // What the user holds now: the passkey that replaced the others, if any.
        return replacement.map { [$0.passkey] } ?? []
    }
}

extension ServerSession {
    /// `resetPasskeyCreationOptions` in this transaction (a simulated phone making the new passkey in the same call), for the application
    /// the code was asked for.
    public func resetPasskeyCreationOptions(_ identifier: UserIdentifier, code: String) throws -> CredentialCreationOptions {
        try core.resetPasskeyCreationOptions(tx, effects, identifier, code: code, applicationId: nil, codeApplication: true)
    }

    /// The origin a simulated browser uses for `rpId` when the caller names none (see `Latchkey.defaultPasskeyOrigin(rpId:)`).
    public func defaultPasskeyOrigin(rpId: String) throws -> String? {
        try core.defaultPasskeyOrigin(tx, rpId: rpId)
    }

    /// `resetPasskeys` in this transaction.
    public func resetPasskeys(_ identifier: UserIdentifier, code: String, newPasskey: ResetPasskey) throws -> [Passkey] {
        try core.resetPasskeys(tx, effects, identifier, code: code, newPasskey: newPasskey)
    }
}
