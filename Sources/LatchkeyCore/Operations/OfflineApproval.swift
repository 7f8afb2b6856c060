import LatchkeyContract

/// Offline approval (PowerAuth's offline signatures): the back end shows a QR payload signed by the
/// application's operation-signing key; the phone, with no network, checks it, shows the payment and
/// shows a code the user types back; the server checks both parts of it.
extension ServerSession {
    /// The QR payload of a pending operation for one of the user's phones (a new nonce every call; it
    /// replaces the nonce of the payload made before for the same operation and phone).
    /// - Throws: `notFound` (`operation`), `operationNotPending`, `authMethodNotAllowed` (`offline` not allowed), `invalidParams`
    ///   (`registrationId`: none given and none or several to choose from), the state answers.
    public func operationQRCode(operationId: String, registrationId: String?) throws -> String {
        let operation = StoreKey.value(operationId)
        tx.willRead(
            Self.offlineRegistrationReads(operation, given: registrationId) + [
                .row(RegistrationKeyRecord.self, id: Self.offlineRegistrations(operation, given: registrationId)),
                .row(ApplicationKeyRecord.self, id: .column(OperationRecord.Columns.applicationId, of: OperationRecord.self, operation)),
            ])
        let record = try core.settledOperation(tx, effects, operationId)
        try core.requirePending(record)
        try requireOffline(record)
        let registration = try offlineRegistration(record, given: registrationId)
        try core.requireActive(registration)
        _ = try core.serverPublicKey(tx, registrationId: registration.id)
        // The key agreements a check of this payload's code needs, made now when they are not kept yet.
        _ = try agreedSecrets(registration)
        let biometric = record.methods.contains(.touchId) || record.methods.contains(.faceId)
        let nonce = random.secret(byteCount: 16)
        let signed = QRPayload.signedText(
            operationId: record.id, title: record.title, message: record.message, data: record.data, biometric: biometric, nonce: nonce)
        _ = try core.operationSigningKey(tx, applicationId: record.applicationId)
        guard let privateKey = try core.serverPrivateKey(tx, ApplicationKeyRecord.self, id: record.applicationId) else {
            throw CryptoFailure("operation-signing key")
        }
        let signature: [UInt8]
        do { signature = try core.signer.signDER(Array(signed.utf8), privateKey: privateKey) } catch { throw CryptoFailure("ECDSA") }
        try tx.deleteAll(
            OperationQRRecord.self,
            where: [.equals(OperationQRRecord.Columns.operationId, record.id), .equals(OperationQRRecord.Columns.registrationId, registration.id)])
        try tx.save(
            OperationQRRecord(
                id: random.uuid(), operationId: record.id, registrationId: registration.id, nonce: nonce, biometric: biometric, createdAt: now))
        return signed + "\n" + Base64URL.encode(signature)
    }

    /// Checks an offline code: its `device` part, then its second part against each two-factor method the registration has activated
    /// that the operation allows (touchId and faceId only when the payload's flags were `B`).
    ///
    /// A wrong `device` part counts one on the operation only (a stranger typing digits locks no phone); a right one with a wrong second
    /// part counts on both, as a wrong PIN does; both right approve (`approvedWith: offline`). A wrong code does not use up the nonce.
    /// - Throws: `notFound`, `operationNotPending`, `authMethodNotAllowed`, `noSessionInProgress` (no payload), `sessionExpired` (its nonce
    ///   is 300 s old), the state answers, `authenticationFailed`, `operationFailed`, `registrationLocked`.
    public func verifyOfflineOperation(operationId: String, code: String, registrationId: String?) throws -> Operation {
        // Without a registration given, the registrations that made a QR payload for the operation (the
        // newest payload's among them).
        let registrations =
            registrationId.map(StoreKey.value)
            ?? .column(OperationQRRecord.Columns.registrationId, of: OperationQRRecord.self, .ids(of: OperationQRRecord.newest, .value(operationId)))
        tx.willRead(
            [.row(OperationRecord.self, id: operationId), .row(RegistrationRecord.self, id: registrations)]
                + (registrationId == nil ? [.rows(OperationQRRecord.newest.query(operationId))] : [])
                + [
                    .rows(OperationQRRecord.newestFor(operationId: operationId), registrations),
                    Latchkey.applicationRead(ofRegistration: registrations), .row(RegistrationKeyRecord.self, id: registrations),
                ])
        var record = try core.settledOperation(tx, effects, operationId)
        try core.requirePending(record)
        try requireOffline(record)
        var registration: RegistrationRecord
        if let registrationId {
            registration = try offlineRegistration(record, given: registrationId)
        } else {
            guard let newest = try tx.fetchAll(OperationQRRecord.newest, operationId).first else {
                throw DomainError(.noSessionInProgress, "No QR payload was made for this operation")
            }
            registration = try offlineRegistration(record, given: newest.registrationId)
        }
        guard let payload = try tx.fetchAll(OperationQRRecord.newestFor(operationId: operationId), registration.id).first else {
            throw DomainError(.noSessionInProgress, "No QR payload was made for this operation and registration")
        }
        guard now < payload.createdAt + ChallengeRecord.lifetime else {
            throw DomainError(.sessionExpired, "The QR payload is more than 300 seconds old; make a new one")
        }
        try core.requireActive(registration)
        let parts = code.split(separator: "-").map(String.init)
        guard parts.count == 2 else { throw DomainError.invalid(.operationText("code"), "must be 8 digits, -, 8 digits") }
        let expected = try offlineParts(registration, record, payload)
        let deviceRight = SecretHash.constantTimeEquals(Array(parts[0].utf8), Array(expected.device.utf8))
        var secondRight = false
        for candidate in expected.factors { secondRight = SecretHash.constantTimeEquals(Array(parts[1].utf8), Array(candidate.utf8)) || secondRight }
        guard deviceRight else {
            // A stranger typing digits locks no phone and leaves no mark on it (as a failing device signature online): counted
            // on the operation only.
            let left = try core.maxFailedAttempts(tx, registration) - registration.failedAttempts
            try countFailure(&record, registration: registration, caller: nil, remainingOnRegistration: left, mismatch: false)
        }
        registration.lastAttempt = now
        guard secondRight else {
            let left = try countFailedFactor(&registration, detail: OperationApproval.offline.rawValue, caller: nil)
            try countFailure(&record, registration: registration, caller: nil, remainingOnRegistration: left, mismatch: false)
        }
        registration.failedAttempts = 0
        try tx.save(registration)
        try audit(.authenticationSucceeded, userId: registration.userId, registrationId: registration.id, detail: OperationApproval.offline.rawValue)
        return try core.approve(tx, effects, &record, with: .offline, registrationId: registration.id, caller: nil)
    }

    /// - Throws: `authMethodNotAllowed` when `offline` is not among the operation's methods.
    private func requireOffline(_ record: OperationRecord) throws {
        guard record.methods.contains(.offline) else {
            throw DomainError(.authMethodNotAllowed, "This operation may not be approved offline")
        }
    }

    /// The registration an offline approval is for: a given one must be the user's, of the operation's application, and the bound one
    /// if the operation is bound; none given, the bound one, else the user's only active registration of the application.
    /// - Throws: `notFound` (`operation`), `invalidParams` (`registrationId`).
    private func offlineRegistration(_ record: OperationRecord, given: String?) throws -> RegistrationRecord {
        if let given {
            guard let registration = try tx.fetch(RegistrationRecord.self, id: given), registration.userId.isSameId(as: record.userId),
                registration.applicationId.isSameId(as: record.applicationId),
                record.registrationId == nil || record.registrationId.isSameId(as: given)
            else { throw DomainError.notFound("operation") }
            return registration
        }
        if let bound = record.registrationId { return try core.registration(tx, bound) }
        let active = try tx.fetchAll(RegistrationRecord.activeOfUser, record.userId).filter { $0.applicationId.isSameId(as: record.applicationId) }
        guard active.count == 1, let only = active.first else {
            throw DomainError.invalid(
                .operationRegistration,
                active.isEmpty ? "is required: the user has no active registration in the application" : "is required: the user has several")
        }
        return only
    }

    /// The parts a right code has: the `device` part, and one second part for each method that may make it.
    private func offlineParts(
        _ registration: RegistrationRecord, _ record: OperationRecord, _ payload: OperationQRRecord
    ) throws -> (
        device: String, factors: [String]
    ) {
        guard let secrets = try agreedSecrets(registration) else {
            throw DomainError(.noSessionInProgress, "No QR payload was made for this registration")
        }
        func part(_ role: KeyRole) -> String? {
            secrets[role].map {
                OfflineCode.part(
                    sharedSecret: $0, role: role, registrationId: registration.id, operationId: record.id, operationHash: record.hash,
                    nonce: payload.nonce)
            }
        }
        guard let device = part(.device) else { throw CryptoFailure("device key") }
        var factors: [String] = []
        for method in registration.methods where method.isTwoFactor {
            guard let approval = OperationApproval(method), record.methods.contains(approval) else { continue }
            if method != .pin, !payload.biometric { continue }
            if let part = part(KeyRole(method)) { factors.append(part) }
        }
        return (device, factors)
    }
}

extension ServerSession {
    /// The registrations an offline approval of `operation` may be for: the one given, else the one
    /// the operation is bound to or the active ones of its user (the body picks among them).
    static func offlineRegistrations(_ operation: StoreKey, given: String?) -> StoreKey {
        given.map(StoreKey.value)
            ?? .either(
                .column(OperationRecord.Columns.registrationId, of: OperationRecord.self, operation),
                .ids(of: RegistrationRecord.activeOfUser, .column(OperationRecord.Columns.userId, of: OperationRecord.self, operation)))
    }

    /// What finding the registration of an offline approval reads: the operation, and the
    /// registrations `offlineRegistrations` finds, by id or as its user's active ones.
    static func offlineRegistrationReads(_ operation: StoreKey, given: String?) -> [StoreRead] {
        let user = StoreKey.column(OperationRecord.Columns.userId, of: OperationRecord.self, operation)
        return [.row(OperationRecord.self, id: operation), .row(RegistrationRecord.self, id: offlineRegistrations(operation, given: given))]
            + (given == nil ? [.rows(RegistrationRecord.activeOfUser, user)] : [])
    }
}

extension RegistrationRecord {
    /// A user's active registrations, oldest first.
    static let activeOfUser = KeyedQuery<RegistrationRecord>(Columns.userId, and: [.equals(Columns.state, RegistrationState.active.rawValue)])
}

extension OperationQRRecord {
    /// The newest QR payload made for an operation.
    static let newest = KeyedQuery<OperationQRRecord>(Columns.operationId, newestFirst: true, limit: 1)

    /// The newest QR payload made for an operation and a registration (keyed by the registration).
    static func newestFor(operationId: String) -> KeyedQuery<OperationQRRecord> {
        KeyedQuery(Columns.registrationId, and: [.equals(Columns.operationId, operationId)], newestFirst: true, limit: 1)
    }
}

extension Latchkey {
    /// `admin/operationQrCode`.
    public func operationQRCode(operationId: String, registrationId: String?) throws -> String {
        try session { try $0.operationQRCode(operationId: operationId, registrationId: registrationId) }
    }

    /// `admin/verifyOfflineOperation`.
    public func verifyOfflineOperation(operationId: String, code: String, registrationId: String?) throws -> Operation {
        try session { try $0.verifyOfflineOperation(operationId: operationId, code: code, registrationId: registrationId) }
    }
}
