import LatchkeyContract

extension Latchkey {
    /// Runs the Relying Party's registration checks for a ceremony; a failure is audited
    /// (`passkeyRejected` with its check) and answered as `passkeyInvalid`.
    /// - Throws: `passkeyInvalid` (`data.check`).
    func checkRegistration(
        _ tx: StoreTransaction, _ effects: Effects, _ response: RegistrationResponse,
        ceremony: PasskeyCeremonyRecord, party: ApplicationRelyingParty, userId: String?
    ) throws -> VerifiedRegistration {
        do {
            return try RelyingParty.verifyRegistration(
                response, challenge: ceremony.challenge, offeredAlgorithms: Self.passkeyAlgorithms,
                settings: party.settings)
        } catch let failure {
            try reject(tx, effects, failure, userId: userId)
        }
    }

    /// Runs the Relying Party's assertion checks: finds the passkey `rawId` names (of the named user, when the options named one), then verifies.
    ///
    /// Answers the passkey updated with what the assertion reported; a counter that did not grow is audited `passkeyCloneSuspected`.
    /// - Throws: `passkeyInvalid` (`data.check`).
    func checkAssertion(
        _ tx: StoreTransaction, _ effects: Effects, _ response: AssertionResponse,
        ceremony: PasskeyCeremonyRecord, party: ApplicationRelyingParty
    ) throws -> PasskeyRecord {
        var record = try tx.fetch(PasskeyRecord.self, id: Base64URL.encode(response.rawId))
        // Another user's passkey (when the options named one) and another RP id's answer as an unknown id does.
        if ceremony.named, record?.userId.isSameId(as: ceremony.userId) != true { record = nil }
        if let found = record, !found.belongs(to: party.rpId) { record = nil }
        // One whose RP id the store never learnt is this RP id's only if the assertion is for it (its first 32 bytes, the RP id's
        // hash, are signed, and checked again); else it is answered as an unknown id at once, whatever else is wrong.
        if record?.rpId == nil, !Self.isAsserted(for: party.settings, response) { record = nil }
        var key: PasskeyVerificationKey?
        if let found = record, let publicKey = found.publicKey,
            let handle = try tx.fetch(UserRecord.self, id: found.userId)?.passkeyUserHandle
        {
            key = PasskeyVerificationKey(
                publicKey: publicKey, signCount: UInt32(clamping: found.signCount), userHandle: handle,
                backupEligible: found.backupEligibleKnown ? found.backupEligible : nil)
        }
        do throws(PasskeyCheckFailure) {
            let verified = try RelyingParty.verifyAssertion(
                response, challenge: ceremony.challenge, passkey: key, requireUserHandle: !ceremony.named, settings: party.settings)
            guard var updated = record else { throw PasskeyCheckFailure(.credential, "no registered passkey has this id") }
            // One whose RP id the store never learnt has just proved it.
            if updated.rpId == nil { updated.rpId = party.rpId }
            updated.signCount = Int64(verified.signCount)
            updated.backedUp = verified.backedUp
            if !updated.backupEligibleKnown {
                updated.backupEligible = verified.backupEligible
                updated.backupEligibleKnown = true
            }
            return updated
        } catch let failure {
            if failure.isCloneSuspected, let record {
                try audit(tx, effects, .passkeyCloneSuspected, userId: record.userId, detail: record.id)
            }
            // An operation's ceremony names its user and operation whatever the credential was.
            let owner = key == nil ? (ceremony.operationId == nil ? nil : ceremony.userId) : record?.userId
            try reject(tx, effects, failure, userId: owner, operationId: ceremony.operationId)
        }
    }

    /// Whether `response`'s authenticator data begins with the hash of `settings`' RP id (it is at least 37 bytes when it parses).
    static func isAsserted(for settings: RelyingPartySettings, _ response: AssertionResponse) -> Bool {
        response.authenticatorData.count >= 37 && response.authenticatorData.prefix(32).elementsEqual(settings.rpIdHash)
    }

    /// Audits a refused credential and answers `passkeyInvalid`.
    private func reject(
        _ tx: StoreTransaction, _ effects: Effects, _ failure: PasskeyCheckFailure, userId: String?, operationId: String? = nil
    ) throws -> Never {
        logger.info("passkey refused", metadata: ["check": "\(failure.check.rawValue)", "why": "\(failure.detail)"])
        try audit(tx, effects, .passkeyRejected, userId: userId, check: failure.check.rawValue, operationId: operationId)
        throw failure.domainError
    }
}
