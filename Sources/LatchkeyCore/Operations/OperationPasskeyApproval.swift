import Crypto
import LatchkeyContract

/// Approving an operation with a passkey (a browser, or a phone's credential manager): the
/// assertion's challenge is SHA-256 of `LATCHKEY-OPERATION-V1\n<operationId>\n<operation hash>\n<nonce>`,
/// so it binds the operation's id and hash; user verification is always required.
extension Latchkey {
    /// Request options to approve an operation of the signed-in user with one of their passkeys.
    /// - Throws: `userSessionInvalid`, `notFound` (`operation`; an `applicationId` other than the operation's), `operationNotPending`,
    ///   `authMethodNotAllowed` (`passkey` not allowed, an operation bound to a registration, a user with no passkey for the RP id).
    public func operationPasskeyOptions(sessionId: String, operationId: String, applicationId: String?) throws -> CredentialRequestOptions {
        try transact { tx, effects in
            let (session, user) = try sessionUser(tx, sessionId) {
                [
                    .rows(PasskeyRecord.ofUser, $0), .row(OperationRecord.self, id: operationId),
                    .row(ApplicationRecord.self, id: applicationId ?? ApplicationConfig.defaultApplicationId),
                ]
            }
            guard var record = try tx.fetch(OperationRecord.self, id: operationId), record.userId.isSameId(as: user.id),
                record.applicationId.isSameId(as: applicationId ?? ApplicationConfig.defaultApplicationId)
            else { throw DomainError.notFound("operation") }
            try settle(tx, effects, &record)
            try requirePending(record)
            guard record.methods.contains(.passkey) else {
                throw DomainError(.authMethodNotAllowed, "This operation may not be approved with a passkey")
            }
            guard record.registrationId == nil else {
                throw DomainError(.authMethodNotAllowed, "This operation is bound to one phone: only that phone may approve it")
            }
            let party = try application(tx, record.applicationId).relyingParty
            let allow = try passkeyRecords(tx, userId: user.id, rpId: party.rpId).filter { $0.publicKey != nil }.compactMap(\.descriptor)
            guard !allow.isEmpty else {
                throw DomainError(.authMethodNotAllowed, "The user holds no passkey for this application's RP id")
            }
            let nonce = random.secret(byteCount: 16)
            let ceremony = try openCeremony(
                tx, .operation, applicationId: record.applicationId, userId: user.id, named: true, openedBy: session.id,
                challenge: Self.operationChallenge(operationId: record.id, hash: record.hash, nonce: nonce), operationId: record.id,
                nonce: nonce)
            return CredentialRequestOptions(
                ceremonyId: ceremony.id, rpId: party.rpId, challenge: ceremony.challenge, timeout: Self.passkeyTimeoutMilliseconds,
                userVerification: .required, allowCredentials: allow)
        }
    }

    /// Approves the operation an `operationPasskeyOptions` ceremony was opened for, with the assertion.
    ///
    /// The ceremony is used up once the credential checks start; a credential that fails them counts nothing on the operation.
    /// - Throws: `noSessionInProgress`, `sessionExpired`, `notFound` (`operation`), `operationNotPending`, `passkeyInvalid` (`data.check`;
    ///   user verification always required, another user's passkey is `credential`).
    public func approveOperationWithPasskey(ceremonyId: String, credential: AssertionResponse) throws -> Operation {
        try transact { tx, effects in
            let key = ceremonyKey(ceremonyId)
            let ceremonyRow = StoreKey.value(key)
            let operation = StoreKey.column(PasskeyCeremonyRecord.Columns.operationId, of: PasskeyCeremonyRecord.self, ceremonyRow)
            let credentialId = StoreKey.value(Base64URL.encode(credential.rawId))
            tx.willRead([
                .row(PasskeyCeremonyRecord.self, id: ceremonyRow), .row(OperationRecord.self, id: operation),
                .row(ApplicationRecord.self, id: .column(OperationRecord.Columns.applicationId, of: OperationRecord.self, operation)),
                .row(PasskeyRecord.self, id: credentialId),
                .row(UserRecord.self, id: .column(PasskeyRecord.Columns.userId, of: PasskeyRecord.self, credentialId)),
            ])
            let ceremony = try liveCeremony(tx, key: key, .operation)
            guard let operationId = ceremony.operationId, var record = try tx.fetch(OperationRecord.self, id: operationId),
                record.userId.isSameId(as: ceremony.userId), record.registrationId == nil
            else { throw DomainError.notFound("operation") }
            try settle(tx, effects, &record)
            try requirePending(record)
            var party = try application(tx, record.applicationId).relyingParty
            party.userVerification = .required
            try tx.delete(PasskeyCeremonyRecord.self, id: ceremony.id)
            var passkey = try checkAssertion(tx, effects, credential, ceremony: ceremony, party: party)
            passkey.lastUsedAt = now
            try tx.save(passkey)
            return try approve(tx, effects, &record, with: .passkey, registrationId: nil, caller: nil)
        }
    }

    /// The assertion challenge of an operation's approval: SHA-256 of
    /// `LATCHKEY-OPERATION-V1\n<operationId>\n<operation hash>\n<nonce>`.
    static func operationChallenge(operationId: String, hash: String, nonce: String) -> [UInt8] {
        SHA256.hash(data: Array("LATCHKEY-OPERATION-V1\n\(operationId)\n\(hash)\n\(nonce)".utf8)).byteArray
    }
}
