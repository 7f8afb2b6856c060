import LatchkeyContract

/// Operations on the phone: the inbox, and approving or rejecting what the phone shows. The phone
/// signs the hash of what it displays — never a hash it was handed — so a changed amount or payee
/// makes the approval fail (PSD2's dynamic linking).
extension Device {
    /// The pending operations of the device's registration, oldest first.
    /// - Throws: `notActivatedLocally`, `registrationRemoved` (its keys moved to another phone by a recovery), the server's
    ///   answers (the registration's state).
    public func operations() throws -> [Operation] {
        let inbox = try server.operationInbox(registrationId: try heldRegistration(), caller: caller)
        try requireThisDevice(keyId: inbox.deviceKeyId)
        try learn(operationSigningKey: inbox.operationSigningKey)
        return inbox.operations
    }

    /// Approves an operation with `parameter`: the phone shows the operation's title and message and
    /// `shownData` (the operation's data unless given), and signs their hash with its `device` key
    /// and the second factor.
    ///
    /// In the contract's order: the operation and the registration's state (the challenge), the method — one the operation
    /// allows and the registration has (`authMethodNotAllowed`, nothing counts) — then an invalidated biometric key, and only then
    /// the phone's own biometry.
    /// - Throws: `notActivatedLocally`, `authMethodNotAllowed`, `biometryKeyInvalidated` (the method is deactivated, nothing
    ///   counts), the biometric errors, and the server's answers (`notFound`, `operationNotPending`, `operationDataMismatch`,
    ///   `authenticationFailed`, `operationFailed`, `registrationLocked`, the state answers).
    public func approveOperation(_ operationId: String, _ parameter: AuthParameter, shownData: String?) throws -> Operation {
        let registrationId = try heldRegistration()
        let challenge = try server.operationChallenge(registrationId: registrationId, operationId: operationId, caller: caller)
        // A phone whose keys a recovery moved elsewhere answers registrationRemoved, whatever it would offer.
        try requireThisDevice(keyId: challenge.deviceKeyId)
        try learn(challenge)
        guard let approval = OperationApproval(parameter.method), challenge.allowedMethods.contains(approval) else {
            let allowed = challenge.allowedMethods.map(\.rawValue).joined(separator: ", ")
            throw DomainError(.authMethodNotAllowed, "This operation may be approved with \(allowed) only")
        }
        guard try activatedMethods().contains(parameter.method) else {
            throw DomainError(.authMethodNotAllowed, "\(parameter.method.rawValue) is not activated for this registration")
        }
        if try isInvalidated(parameter.method) { try refuseInvalidated(parameter.method, keeping: try storage.pendingOperation()) }
        let hash = Self.shownHash(challenge.operation, shownData: shownData)
        let payload = SignedPayload(
            .approveOperation, subject: registrationId, challenge: challenge.challenge, role: .device, contextHash: hash)
        let signatures = try signatures(payload, parameter)
        let approved = try server.approveOperation(
            registrationId: registrationId, challengeId: challenge.challengeId, operationId: operationId, operationHash: hash,
            signatures: signatures, caller: caller)
        try storage.set(.lastAuthenticationMethod, parameter.method.rawValue)
        return approved
    }

    /// Rejects an operation for `reason`, signed by the `device` key over `<reason>:<hash of what it shows>`.
    /// - Throws: `notActivatedLocally`, the server's answers.
    public func rejectOperation(_ operationId: String, reason: OperationRejectReason, shownData: String?) throws -> Operation {
        let registrationId = try heldRegistration()
        let challenge = try server.operationChallenge(registrationId: registrationId, operationId: operationId, caller: caller)
        try learn(challenge)
        let hash = Self.shownHash(challenge.operation, shownData: shownData)
        let payload = SignedPayload(
            .rejectOperation, subject: registrationId, challenge: challenge.challenge, role: .device,
            contextHash: OperationHash.rejection(reason, hash: hash))
        let signatures = FactorSignatures(device: try FactorKey.sign(payload, with: try storage.item(.possessionKey) ?? []))
        return try server.rejectOperation(
            registrationId: registrationId, challengeId: challenge.challengeId, operationId: operationId, operationHash: hash,
            reason: reason, signatures: signatures, caller: caller)
    }

    /// The hash of what the phone displays: the operation's title and message, and the data shown.
    static func shownHash(_ operation: Operation, shownData: String?) -> String {
        OperationHash.of(operationId: operation.operationId, title: operation.title, message: operation.message, data: shownData ?? operation.data)
    }

    /// Keeps the keys an operation challenge carries.
    private func learn(_ challenge: OperationChallenge) throws {
        try learn(operationSigningKey: challenge.operationSigningKey)
        try storage.setItem(.serverPublicKey, challenge.serverPublicKey.sec1)
    }

    /// Keeps the application's operation-signing key as first learned: a different one later is not taken.
    func learn(operationSigningKey key: PublicKey?) throws {
        guard let key, try storage.item(.operationSigningKey) == nil else { return }
        try storage.setItem(.operationSigningKey, key.sec1)
    }

    /// Keeps the registration's server key (it stays the same across a recovery).
    func learn(serverPublicKey key: PublicKey?) throws {
        guard let key else { return }
        try storage.setItem(.serverPublicKey, key.sec1)
    }
}
