import LatchkeyContract

extension Latchkey {
    /// What using `token` reads: its row, by the token's hash.
    public func tokenReads(_ token: String) -> [StoreRead] {
        [.row(TokenRecord.self, id: secretHash(token, purpose: "token"))]
    }

    /// Issues a token for `purpose` (nil for `none`), never outliving `notAfter`.
    func issueToken(
        _ tx: StoreTransaction, _ effects: Effects, registration: RegistrationRecord, purpose: TokenPurpose,
        notAfter: Int64? = nil
    ) throws -> String? {
        guard purpose != .none else { return nil }
        let ttl = try application(tx, registration.applicationId).tokenTtlSeconds
        let token = random.secret(byteCount: 32)
        var expiresAt = now + ttl
        if let notAfter { expiresAt = min(expiresAt, notAfter) }
        try tx.save(
            TokenRecord(
                id: secretHash(token, purpose: "token"), registrationId: registration.id,
                purpose: purpose.rawValue, keyGeneration: registration.keyGeneration, expiresAt: expiresAt,
                used: false, createdAt: now))
        try audit(tx, effects, .tokenIssued, userId: registration.userId, registrationId: registration.id, detail: purpose.rawValue)
        return token
    }

    /// A token that may be used now: this registration's, unused, unexpired and of `purpose`.
    /// - Throws: `tokenInvalid`, `tokenExpired`, `tokenPurposeMismatch`.
    @discardableResult
    func checkToken(
        _ tx: StoreTransaction, _ effects: Effects, _ token: String, registration: RegistrationRecord,
        purpose: TokenPurpose
    ) throws -> TokenRecord {
        let hash = secretHash(token, purpose: "token")
        guard let record = try tx.fetch(TokenRecord.self, id: hash), !record.used, record.registrationId.isSameId(as: registration.id),
            record.keyGeneration == registration.keyGeneration
        else {
            try audit(tx, effects, .tokenRejected, userId: registration.userId, registrationId: registration.id, detail: "invalid")
            throw DomainError(.tokenInvalid, "The token is unknown, used, or not this registration's")
        }
        guard now < record.expiresAt else {
            throw DomainError(.tokenExpired, "The token has expired")
        }
        guard record.purpose == purpose.rawValue else {
            throw DomainError(.tokenPurposeMismatch, "The token was issued for \(record.purpose), not \(purpose.rawValue)")
        }
        return record
    }

    /// Uses a token once (see `checkToken`); `use` runs after the checks, before the token is spent.
    ///
    /// Returns when it would have expired.
    /// - Throws: `tokenInvalid`, `tokenExpired`, `tokenPurposeMismatch`, what `use` throws.
    func consumeToken(
        _ tx: StoreTransaction, _ effects: Effects, _ token: String, registration: RegistrationRecord,
        purpose: TokenPurpose, before use: () throws -> Void = {}
    ) throws -> Int64 {
        var record = try checkToken(tx, effects, token, registration: registration, purpose: purpose)
        try use()
        record.used = true
        try tx.save(record)
        try audit(tx, effects, .tokenUsed, userId: registration.userId, registrationId: registration.id, detail: purpose.rawValue)
        return record.expiresAt
    }

    /// Revokes every outstanding token of a registration (lock, removal, new keys), and every recovery change a token opened and
    /// that is still in hand (its grant): a phone whose keys moved elsewhere, or a registration locked since, finishes none.
    func revokeTokens(_ tx: StoreTransaction, registrationId: String) throws {
        try tx.deleteAll(TokenRecord.self, where: [.equals(TokenRecord.Columns.registrationId, registrationId)])
        for grant in [ChallengeKind.addOrUpdateRecovery, .deleteRecovery] {
            try tx.deleteAll(
                ChallengeRecord.self,
                where: [.equals(ChallengeRecord.Columns.registrationId, registrationId), .equals(ChallengeRecord.Columns.purpose, grant.rawValue)])
        }
    }
}
