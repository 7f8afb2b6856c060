import LatchkeyContract

/// What a checked proof of possession registers: a key for a role.
struct CheckedKey {
    var role: KeyRole
    var publicKey: [UInt8]
}

extension ServerSession {
    /// Checks proofs of possession in the contract's order (`device`, `pin`, `touchId`, `faceId`, `recovery`): each key's own signature over
    /// `payload` in its role; a missing one fails.
    ///
    /// Nothing is written but the audit event of the failure.
    /// - Throws: `proofInvalid` naming the first failing role in `data.keyRole`.
    func checkProofs(_ keys: [(KeyRole, KeyWithProof)], _ payload: SignedPayload, registrationId: String?, caller: Caller?) throws {
        let ordered = keys.sorted { lhs, rhs in
            (KeyRole.allCases.firstIndex(of: lhs.0) ?? 0) < (KeyRole.allCases.firstIndex(of: rhs.0) ?? 0)
        }
        for (role, key) in ordered where !(key.proof.map { key.publicKey.verifies($0, over: payload.signed(by: role)) } ?? false) {
            try audit(.proofRejected, registrationId: registrationId, caller: caller, detail: role.rawValue)
            let what = key.proof == nil ? "is missing" : "does not verify"
            throw DomainError(
                .proofInvalid, "The proof of possession of the \(role.rawValue) key \(what); nothing was registered",
                [(.keyRole, .string(role.rawValue))])
        }
    }

    /// The proofs of a key set, `device` first.
    func checkProofs(_ keys: KeySet, _ payload: SignedPayload, registrationId: String?, caller: Caller?) throws {
        try checkProofs(
            [(.device, keys.device)] + keys.factors.map { (KeyRole($0.key), $0.value) }, payload,
            registrationId: registrationId, caller: caller)
    }

    /// A picked-up push must still wait: one decided or expired ends the session.
    /// - Throws: `sessionExpired`.
    func checkPush(_ push: PushedAuthenticationRecord?) throws {
        if let push, push.status != PushedAuthenticationStatus.pending.rawValue || now >= push.expiresAt {
            throw DomainError(.sessionExpired, "The pushed authentication in hand expired or was decided; start again")
        }
    }

    /// What the signatures may do, checked once the device signed: a second factor given must be
    /// activated; a picked-up push needs one, and so does a token.
    /// - Throws: `authMethodNotAllowed`.
    private func checkFactor(_ signatures: FactorSignatures, _ registration: RegistrationRecord, push: Bool, tokenPurpose: TokenPurpose) throws {
        if let factor = signatures.factor, !registration.methods.contains(factor) {
            throw DomainError(.authMethodNotAllowed, "\(factor.rawValue) is not activated for this registration")
        }
        if push, signatures.factor == nil {
            throw DomainError(.authMethodNotAllowed, "A pushed authentication needs a two-factor method")
        }
        if tokenPurpose != .none, signatures.factor == nil {
            throw DomainError(.authMethodNotAllowed, "A token needs a two-factor method; device alone cannot yield one")
        }
    }

    /// Verifies the signatures over `payload` and counts: first the device's (one that fails answers `registrationRemoved`, uses up the
    /// challenge and counts nothing: the caller is not, or no longer, this registration's device, whatever else it sent), then what the
    /// signatures may do (`checkFactor`, then `permits`: refusals that leave the challenge usable), then the challenge is used up and the
    /// second factor's is checked.
    ///
    /// A failure counts one attempt (and locks at the limit) on an active registration; on another (only a removal gets here in
    /// another state) it answers the state and counts nothing. A two-factor success resets the counter. What the registration became is
    /// saved. A removal (`asAuthentication: false`) is no authentication attempt unless a second factor is given: nothing is recorded of
    /// it.
    /// - Throws: `registrationRemoved`, `authMethodNotAllowed`, `authenticationFailed`, `registrationLocked`, and for a removal
    ///   `lockedByAdmin`, `verificationPending`.
    func verifySignatures(
        _ signatures: FactorSignatures, over payload: SignedPayload, _ registration: inout RegistrationRecord,
        _ challenge: ChallengeRecord, caller: Caller?, asAuthentication: Bool = true, push: Bool = false,
        tokenPurpose: TokenPurpose = .none, permits: () throws -> Void = {}
    ) throws {
        try requireDeviceSignature(signatures, over: payload, registration, challenge)
        try checkFactor(signatures, registration, push: push, tokenPurpose: tokenPurpose)
        try permits()
        try useUp(challenge)
        let method = signatures.factor ?? .device
        let attempt = asAuthentication || method.isTwoFactor
        if attempt { registration.lastAttempt = now }
        let factorOK: Bool
        if let factor = signatures.factor, let signature = signatures.factorSignature {
            factorOK =
                registration.publicKey(for: factor).flatMap(PublicKey.init(sec1:))?
                .verifies(signature, over: payload.signed(by: KeyRole(factor))) ?? false
        } else {
            factorOK = signatures.factor == nil
        }
        guard factorOK else {
            // A registration that is not active never counts an attempt: only a removal, issued in any state, gets here in
            // another, and its failing second factor answers the state (a PIN-locked one is not counted past its limit, an
            // operator's lock is not turned into a PIN lock).
            try core.requireActive(registration)
            let remaining = try countFailedFactor(&registration, method: method, caller: caller)
            guard remaining > 0 else { throw Self.lockedNow }
            throw DomainError(.authenticationFailed, "Authentication failed", [(.remainingAttempts, .int(remaining))])
        }
        if method.isTwoFactor { registration.failedAttempts = 0 }
        try tx.save(registration)
        if attempt {
            try audit(
                .authenticationSucceeded, userId: registration.userId, registrationId: registration.id, caller: caller,
                detail: method.rawValue)
        }
    }

    /// The answer of the failure that locked the registration.
    static let lockedNow = DomainError(
        .registrationLocked, "Too many failed attempts: the registration is now locked", [(.remainingAttempts, .int(0))])

    /// The device signature over `payload`: one that fails answers `registrationRemoved` (the caller is not, or no longer, this
    /// registration's device), uses the challenge up (the verify reached the signatures) and counts nothing.
    /// - Throws: `registrationRemoved`.
    func requireDeviceSignature(
        _ signatures: FactorSignatures, over payload: SignedPayload, _ registration: RegistrationRecord, _ challenge: ChallengeRecord
    ) throws {
        guard let deviceKey = PublicKey(sec1: registration.possessionPublicKey),
            deviceKey.verifies(signatures.device, over: payload.signed(by: .device))
        else {
            try useUp(challenge)
            throw DomainError(.registrationRemoved, "The registration was removed or moved to another device")
        }
    }

    /// Counts a failed second factor on the registration (and locks it at the limit, revoking its
    /// tokens); saves it.
    /// - Returns: the attempts left (0: it is locked now).
    func countFailedFactor(_ registration: inout RegistrationRecord, method: AuthMethod, caller: Caller?) throws -> Int {
        try countFailedFactor(&registration, detail: method.rawValue, caller: caller)
    }

    /// `countFailedFactor`, audited with `detail` (`offline` for an offline code's second part).
    func countFailedFactor(_ registration: inout RegistrationRecord, detail: String, caller: Caller?) throws -> Int {
        registration.failedAttempts += 1
        try audit(.authenticationFailed, userId: registration.userId, registrationId: registration.id, caller: caller, detail: detail)
        let limit = try core.maxFailedAttempts(tx, registration)
        guard registration.failedAttempts < limit else {
            registration.state = RegistrationState.locked.rawValue
            try tx.save(registration)
            core.registrationStateChanged(effects, registration, from: .active)
            try core.revokeTokens(tx, registrationId: registration.id)
            try audit(.registrationLocked, userId: registration.userId, registrationId: registration.id)
            return 0
        }
        try tx.save(registration)
        return limit - registration.failedAttempts
    }
}
