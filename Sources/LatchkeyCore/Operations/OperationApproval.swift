import LatchkeyContract

/// Approving and rejecting operations from a phone (`server/operation/*`, and the simulated phone
/// on the same operations), in the order of the contract's Rules: the challenge (and that it was
/// issued for this operation), the operation, the registration's state, the method, the `device`
/// signature over the payload with the hash the phone signed (a stranger fails no operation), that
/// hash against the operation's, then the second factor.
extension ServerSession: OperationsConnection {
    public func operationInbox(registrationId: String, caller: Caller?) throws -> OperationInbox {
        tx.willRead(Self.operationInboxReads(.value(registrationId)))
        let registration = try core.registration(tx, registrationId)
        try core.requireActive(registration)
        let pending = try tx.fetchAll(OperationRecord.pendingOf, registration.userId).filter {
            $0.applicationId.isSameId(as: registration.applicationId)
        }
        var listed: [Operation] = []
        for var record in pending where record.registrationId == nil || record.registrationId.isSameId(as: registration.id) {
            try core.settle(tx, effects, &record)
            if record.isPending { listed.append(try record.operation()) }
        }
        return OperationInbox(
            operations: listed, operationSigningKey: try core.operationSigningKey(tx, applicationId: registration.applicationId),
            deviceKeyId: registration.deviceKeyId)
    }

    public func operationChallenge(registrationId: String, operationId: String, caller: Caller?) throws -> OperationChallenge {
        tx.willRead(Self.operationChallengeReads(operationId: operationId, registration: .value(registrationId)))
        let registration = try core.registration(tx, registrationId)
        let record = try approvable(operationId, for: registration)
        try core.requireActive(registration)
        let challenge = try issueChallenge(registration, .operation, contextHash: record.hash, caller: caller, operationId: record.id)
        return OperationChallenge(
            challengeId: challenge.id, challenge: challenge.challenge, expiresAt: challenge.expiresAt, operation: try record.operation(),
            operationHash: record.hash, operationSigningKey: try core.operationSigningKey(tx, applicationId: registration.applicationId),
            serverPublicKey: try core.serverPublicKey(tx, registrationId: registration.id), allowedMethods: record.methods,
            deviceKeyId: registration.deviceKeyId)
    }

    public func approveOperation(
        registrationId: String, challengeId: String, operationId: String, operationHash: String, signatures: FactorSignatures,
        caller: Caller?
    ) throws -> Operation {
        tx.willRead(Self.operationDecisionReads(challengeId: challengeId, registrationId: registrationId, operationId: operationId))
        var (challenge, record, registration) = try opened(challengeId, registrationId: registrationId, operationId: operationId)
        guard let factor = signatures.factor, let approval = OperationApproval(factor), record.methods.contains(approval) else {
            throw DomainError(.authMethodNotAllowed, "This operation may be approved with \(Self.list(record.methods)) only")
        }
        guard registration.methods.contains(factor) else {
            throw DomainError(.authMethodNotAllowed, "\(factor.rawValue) is not activated for this registration")
        }
        let payload = SignedPayload(
            .approveOperation, subject: registrationId, challenge: challenge.challenge, role: .device, contextHash: operationHash)
        try requireDeviceSignature(signatures, over: payload, registration, challenge)
        try useUp(challenge)
        registration.lastAttempt = now
        guard SecretHash.constantTimeEquals(operationHash, record.hash) else {
            // The phone showed something else: counted on the operation only.
            let left = try core.maxFailedAttempts(tx, registration) - registration.failedAttempts
            try tx.save(registration)
            try countFailure(&record, registration: registration, caller: caller, remainingOnRegistration: left, mismatch: true)
        }
        let factorOK =
            signatures.factorSignature.map { signature in
                registration.publicKey(for: factor).flatMap(PublicKey.init(sec1:))?
                    .verifies(signature, over: payload.signed(by: KeyRole(factor))) ?? false
            } ?? false
        guard factorOK else {
            let left = try countFailedFactor(&registration, method: factor, caller: caller)
            try countFailure(&record, registration: registration, caller: caller, remainingOnRegistration: left, mismatch: false)
        }
        registration.failedAttempts = 0
        try tx.save(registration)
        try audit(.authenticationSucceeded, userId: registration.userId, registrationId: registration.id, caller: caller, detail: factor.rawValue)
        return try core.approve(tx, effects, &record, with: approval, registrationId: registration.id, caller: caller)
    }

    public func rejectOperation(
        registrationId: String, challengeId: String, operationId: String, operationHash: String, reason: OperationRejectReason,
        signatures: FactorSignatures, caller: Caller?
    ) throws -> Operation {
        tx.willRead(Self.operationDecisionReads(challengeId: challengeId, registrationId: registrationId, operationId: operationId))
        var (challenge, record, registration) = try opened(challengeId, registrationId: registrationId, operationId: operationId)
        let payload = SignedPayload(
            .rejectOperation, subject: registrationId, challenge: challenge.challenge, role: .device,
            contextHash: OperationHash.rejection(reason, hash: operationHash))
        try requireDeviceSignature(FactorSignatures(device: signatures.device), over: payload, registration, challenge)
        try useUp(challenge)
        registration.lastAttempt = now
        try tx.save(registration)
        record.status = OperationStatus.rejected.rawValue
        record.rejectReason = reason.rawValue
        record.decidedAt = now
        try tx.save(record)
        // A hash other than the operation's still rejects it: the user saw something else (a fraud signal).
        let mismatch = !SecretHash.constantTimeEquals(operationHash, record.hash)
        try core.announce(tx, effects, record, .operationRejected, registrationId: registration.id, caller: caller, dataMismatch: mismatch)
        return try record.operation()
    }

    /// The first checks of an approval or a rejection: the challenge (issued for this operation), the
    /// operation, the registration's state (counting nothing).
    /// - Throws: `noSessionInProgress`, `sessionExpired`, `notFound` (`operation`), `operationNotPending`, the state answers.
    private func opened(
        _ challengeId: String, registrationId: String, operationId: String
    ) throws -> (
        ChallengeRecord, OperationRecord, RegistrationRecord
    ) {
        let challenge = try openChallenge(challengeId, registrationId: registrationId, serving: [.operation])
        guard challenge.operationId.isSameId(as: operationId) else {
            throw DomainError(.noSessionInProgress, "The challenge was issued for another operation")
        }
        let registration = try core.registration(tx, registrationId)
        let record = try approvable(operationId, for: registration)
        try core.requireActive(registration)
        return (challenge, record, registration)
    }

    /// The operation, pending, as `registration` may see it: its user's, of its application, not bound to another registration.
    /// - Throws: `notFound` (`operation`), `operationNotPending` with `data.status`.
    func approvable(_ operationId: String, for registration: RegistrationRecord) throws -> OperationRecord {
        guard var record = try tx.fetch(OperationRecord.self, id: operationId), record.userId.isSameId(as: registration.userId),
            record.applicationId.isSameId(as: registration.applicationId),
            record.registrationId == nil || record.registrationId.isSameId(as: registration.id)
        else { throw DomainError.notFound("operation") }
        try core.settle(tx, effects, &record)
        try core.requirePending(record)
        return record
    }

    /// Counts a failure on the operation (a mismatch, or a wrong second factor that the registration counted too) and answers it: the
    /// failure that reaches `maxFailureCount` fails the operation (`operationFailed`, before `registrationLocked`, whose lock still
    /// happened); otherwise `registrationLocked`, `operationDataMismatch` or `authenticationFailed` with the smaller of what both have left.
    func countFailure(
        _ record: inout OperationRecord, registration: RegistrationRecord, caller: Caller?, remainingOnRegistration: Int, mismatch: Bool
    ) throws -> Never {
        record.failureCount += 1
        try core.audit(
            tx, effects, .operationApprovalFailed, userId: record.userId, registrationId: registration.id, deviceId: caller?.deviceId,
            detail: mismatch ? "dataMismatch" : "factor", installationId: caller?.installationId, operationId: record.id,
            dataMismatch: mismatch)
        if record.failureCount >= record.maxFailureCount {
            record.status = OperationStatus.failed.rawValue
            record.decidedAt = now
            try tx.save(record)
            try core.announce(tx, effects, record, .operationFailed, registrationId: registration.id, caller: caller)
            throw DomainError(
                .operationFailed, "Too many failed approvals: the operation failed", [(.status, .string(OperationStatus.failed.rawValue))])
        }
        try tx.save(record)
        if remainingOnRegistration <= 0 { throw Self.lockedNow }
        let remaining = min(record.maxFailureCount - record.failureCount, remainingOnRegistration)
        if mismatch {
            throw DomainError(
                .operationDataMismatch, "The phone signed other data than the operation's", [(.remainingAttempts, .int(remaining))])
        }
        throw DomainError(.authenticationFailed, "Authentication failed", [(.remainingAttempts, .int(remaining))])
    }

    static func list(_ methods: [OperationApproval]) -> String { methods.map(\.rawValue).joined(separator: ", ") }

    /// What the inbox of the registration `registration` finds reads: it, its user's pending
    /// operations and its application's operation-signing key.
    public static func operationInboxReads(_ registration: StoreKey) -> [StoreRead] {
        [
            .row(RegistrationRecord.self, id: registration),
            .rows(OperationRecord.pendingOf, .column(RegistrationRecord.Columns.userId, of: RegistrationRecord.self, registration)),
            .row(ApplicationKeyRecord.self, id: .column(RegistrationRecord.Columns.applicationId, of: RegistrationRecord.self, registration)),
        ]
    }

    /// What a challenge for an operation reads: the operation, the registration and the server's keys
    /// it answers with (a phone approving or rejecting states them with its own reads).
    public static func operationChallengeReads(operationId: String, registration: StoreKey) -> [StoreRead] {
        [
            .row(OperationRecord.self, id: operationId), .row(RegistrationRecord.self, id: registration),
            .row(ApplicationKeyRecord.self, id: .column(RegistrationRecord.Columns.applicationId, of: RegistrationRecord.self, registration)),
            .row(RegistrationKeyRecord.self, id: registration),
        ]
    }

    /// What an approval or rejection reads: the challenge, the operation, the registration and its
    /// application (its limit of failed attempts).
    static func operationDecisionReads(challengeId: String, registrationId: String, operationId: String) -> [StoreRead] {
        let registration = StoreKey.value(registrationId)
        return [
            .row(ChallengeRecord.self, id: challengeId), .row(OperationRecord.self, id: operationId),
            .row(RegistrationRecord.self, id: registration), Latchkey.applicationRead(ofRegistration: registration),
        ]
    }
}

extension Latchkey {
    /// Marks the operation approved and announces it.
    func approve(
        _ tx: StoreTransaction, _ effects: Effects, _ record: inout OperationRecord, with approval: OperationApproval,
        registrationId: String?, caller: Caller?
    ) throws -> Operation {
        record.status = OperationStatus.approved.rawValue
        record.approvedWith = approval.rawValue
        record.decidedAt = now
        try tx.save(record)
        try announce(tx, effects, record, .operationApproved, registrationId: registrationId, caller: caller)
        return try record.operation()
    }
}
