import LatchkeyContract

extension Latchkey {
    /// Creates an activation code for a user, in the application's format and lifetime.
    /// - Throws: `notFound` (user, application).
    public func createActivationCode(userId: String, applicationId: String?) throws -> (code: String, expiresAt: UnixTime) {
        try transact { tx, effects in
            tx.willRead([
                .row(UserRecord.self, id: userId), .row(ApplicationRecord.self, id: applicationId ?? ApplicationConfig.defaultApplicationId),
            ])
            _ = try user(tx, userId)
            let app = try application(tx, applicationId)
            let alphabet =
                app.activationCodeType == .numeric
                ? Array("0123456789") : Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
            // Short numeric codes repeat over time: a new code never equals one still usable.
            var code: String
            var hash: String
            repeat {
                code = random.string(count: app.activationCodeLength, alphabet: alphabet)
                hash = secretHash(code, purpose: "activation")
            } while try !tx.noneMatch(
                StoreQuery<ActivationCodeRecord>(
                    where: [
                        .equals(ActivationCodeRecord.Columns.codeHash, hash), .equals(ActivationCodeRecord.Columns.consumed, false),
                        StoreFilter(ActivationCodeRecord.Columns.expiresAt, .greaterOrEqual, .int(now + 1)),
                    ], limit: 1))
            let expiresAt = now + app.activationCodeTtlSeconds
            try tx.save(
                ActivationCodeRecord(
                    id: random.identifier("act"), codeHash: hash,
                    userId: userId, applicationId: app.applicationId, expiresAt: expiresAt,
                    boundDeviceId: nil, consumed: false, createdAt: now))
            try audit(tx, effects, .activationCodeCreated, userId: userId, detail: app.applicationId)
            return (code, expiresAt)
        }
    }
}
