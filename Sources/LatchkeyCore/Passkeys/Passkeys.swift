import Crypto
import LatchkeyContract

/// A passkey registered with another Relying Party, imported by an operator (`admin/createUser`).
public struct ImportedPasskey: Sendable, Equatable {
    public var credentialId: [UInt8]
    /// The COSE public key.
    public var publicKey: [UInt8]
    public var friendlyName: String?
    public var signCount: Int64?
    /// The backup eligibility it was registered with there (nil: unknown; its first successful
    /// sign-in here sets it).
    public var backupEligible: Bool?

    public init(
        credentialId: [UInt8], publicKey: [UInt8], friendlyName: String? = nil, signCount: Int64? = nil, backupEligible: Bool? = nil
    ) {
        self.credentialId = credentialId
        self.publicKey = publicKey
        self.friendlyName = friendlyName
        self.signCount = signCount
        self.backupEligible = backupEligible
    }
}

extension Latchkey {
    /// A made-up credential id is as long as the simulated phone's (and iCloud Keychain's) ids.
    static let decoyCredentialIdLength = 20

    /// The name a passkey gets when the caller gives none.
    public static let defaultPasskeyName = "Passkey"

    /// Options to add a passkey to the signed-in user.
    /// - Throws: `userSessionInvalid`, `notFound` (application), `policyViolation` (`tooManyPasskeys`).
    public func passkeyCreationOptions(sessionId: String, applicationId: String?) throws -> CredentialCreationOptions {
        try transact { tx, _ in
            let (session, user) = try sessionUser(tx, sessionId) {
                [.rows(PasskeyRecord.ofUser, $0), .row(ApplicationRecord.self, id: applicationId ?? ApplicationConfig.defaultApplicationId)]
            }
            let app = try application(tx, applicationId)
            try requireRoomForPasskey(tx, userId: user.id)
            let ceremony = try openCeremony(tx, .create, applicationId: app.applicationId, userId: user.id, named: true, openedBy: session.id)
            return try creationOptions(tx, ceremony, user, app)
        }
    }

    /// Registers the passkey an authenticator made from `passkey/creationOptions`.
    ///
    /// The ceremony dies with the session that asked for it: once that session ended (a logout, a
    /// password change that ended it, a passkey reset, its lifetime) it answers `noSessionInProgress`.
    /// - Throws: `noSessionInProgress`, `sessionExpired`, `policyViolation` (`tooManyPasskeys`),
    ///   `passkeyInvalid` (`data.check`), `alreadyExists` (the credential id is registered).
    public func createPasskey(ceremonyId: String, credential: RegistrationResponse, friendlyName: String?) throws -> Passkey {
        try transact { tx, effects in
            let key = ceremonyKey(ceremonyId)
            tx.willRead(Self.ceremonyReads(key: key) + [Self.serverConfigRead])
            let ceremony = try liveCeremony(tx, key: key, .create)
            guard let userId = ceremony.userId, let user = try tx.fetch(UserRecord.self, id: userId) else {
                throw DomainError(.noSessionInProgress, "No passkey ceremony of this kind is open with this ceremonyId")
            }
            try requireOpenerLive(ceremony) { sessionId in
                guard let session = try tx.fetch(UserSessionRecord.self, id: sessionId) else { return false }
                return try session.userId.isSameId(as: user.id) && isLive(tx, session)
            }
            try requireRoomForPasskey(tx, userId: user.id)
            let app = try application(tx, ceremony.applicationId)
            try tx.delete(PasskeyCeremonyRecord.self, id: ceremony.id)
            let verified = try checkRegistration(tx, effects, credential, ceremony: ceremony, party: app.relyingParty, userId: user.id)
            try requireNewCredentialId(tx, verified.credentialId)
            let record = PasskeyRecord(
                verified, userId: user.id, friendlyName: friendlyName ?? Self.defaultPasskeyName, rpId: app.relyingParty.rpId, at: now)
            try tx.save(record)
            try audit(tx, effects, .passkeyCreated, userId: user.id, detail: record.id)
            sendSecurityNotice(effects, to: user, "A passkey was added to your account. If this was not you, contact support.")
            return record.passkey
        }
    }

    /// Options to sign in with a passkey: the named user's passkeys, or none for a discoverable-credential sign-in.
    ///
    /// An identifier that matches nobody (or a user with no passkey) gets one made-up credential, the same every time, so the answer tells
    /// nothing.
    /// - Throws: `notFound` (application).
    public func passkeyRequestOptions(_ identifier: UserIdentifier?, applicationId: String?) throws -> CredentialRequestOptions {
        try transact { tx, _ in
            tx.willRead(
                [.row(ApplicationRecord.self, id: applicationId ?? ApplicationConfig.defaultApplicationId)]
                    + (identifier.map { [$0.lookup.read] } ?? []))
            let app = try application(tx, applicationId)
            var userId: String?
            var allow: [PasskeyDescriptor] = []
            if let identifier {
                // The same work whether or not anyone is found (security property 11): a user read and decoded
                // (`userTellingNothing`); passkeys read and decoded once the lookup has answered (read with the lookup, a known
                // identifier's would find rows more); the decoy credential's hash. For an unknown identifier the decoy user's first
                // passkey, thrown away: the decoy is whoever this process found last, a caller's own account with up to 25
                // passkeys, which would make an unknown identifier's options cost what that account holds. (How many a known
                // user has, the answer's list tells.)
                let decoyUser = decoyUserId
                let user = try userTellingNothing(tx, matching: identifier, decoy: decoyUser)
                let decoy = decoyCredential(identifier)
                let rpId = app.relyingParty.rpId
                let passkeys = try
                    (user.map { try passkeyRecords(tx, userId: $0.id, rpId: rpId) }
                    ?? passkeyRecords(tx, userId: decoyUser, rpId: rpId, of: PasskeyRecord.firstOfUser))
                    .filter { $0.publicKey != nil }.compactMap(\.descriptor)
                userId = user?.id
                allow = user == nil || passkeys.isEmpty ? [decoy] : passkeys
            }
            let ceremony = try openCeremony(tx, .get, applicationId: app.applicationId, userId: userId, named: identifier != nil)
            let party = app.relyingParty
            return CredentialRequestOptions(
                ceremonyId: ceremony.id, rpId: party.rpId, challenge: ceremony.challenge,
                timeout: Self.passkeyTimeoutMilliseconds, userVerification: party.userVerification,
                allowCredentials: allow)
        }
    }

    /// The made-up credential offered for an identifier with no passkey behind it: derived with
    /// the store's keyed hash, so it is stable and tells nothing.
    private func decoyCredential(_ identifier: UserIdentifier) -> PasskeyDescriptor {
        let mac = keyedMAC(Array(("passkey-decoy\u{0}" + identifier.key).utf8))
        return PasskeyDescriptor(id: Array(mac.prefix(Self.decoyCredentialIdLength)), transports: PlatformTransports.simulatedPhone)
    }

    /// Signs a user in with a passkey: a new session, exactly as `user/login` makes one.
    /// - Throws: `noSessionInProgress`, `sessionExpired`, `passkeyInvalid` (`data.check`).
    public func passkeyLogin(ceremonyId: String, credential: AssertionResponse) throws -> (sessionId: String, uid: String) {
        let key = ceremonyKey(ceremonyId)
        return try transact { tx, effects in
            let passkey = StoreKey.value(Base64URL.encode(credential.rawId))
            let owner = StoreKey.column(PasskeyRecord.Columns.userId, of: PasskeyRecord.self, passkey)
            tx.willRead(
                Self.ceremonyReads(key: key).prefix(2) + [.row(PasskeyRecord.self, id: passkey), .row(UserRecord.self, id: owner)]
                    + Self.accountRecoveryReads(owner))
            let ceremony = try liveCeremony(tx, key: key, .get)
            let app = try application(tx, ceremony.applicationId)
            try tx.delete(PasskeyCeremonyRecord.self, id: ceremony.id)
            var record = try checkAssertion(tx, effects, credential, ceremony: ceremony, party: app.relyingParty)
            record.lastUsedAt = now
            try tx.save(record)
            let sessionId = try openSession(tx, effects, userId: record.userId)
            try audit(tx, effects, .passkeyLogin, userId: record.userId, detail: record.id)
            return (sessionId, record.userId)
        }
    }

    /// Removes one of the signed-in user's passkeys.
    /// - Throws: `userSessionInvalid`, `notFound` (passkey).
    public func removePasskey(sessionId: String, passkeyId: String) throws -> [Passkey] {
        try transact { tx, effects in
            let (_, user) = try sessionUser(tx, sessionId) { [.rows(PasskeyRecord.ofUser, $0)] }
            let held = try passkeyRecords(tx, userId: user.id)
            guard let record = held.first(where: { $0.id.isSameId(as: passkeyId) }) else { throw DomainError.notFound("passkey") }
            try tx.delete(PasskeyRecord.self, id: record.id)
            try audit(tx, effects, .passkeyRemoved, userId: user.id, detail: record.id)
            sendSecurityNotice(effects, to: user, "A passkey was removed from your account. If this was not you, contact support.")
            // What the user holds now: the others, in their order.
            return held.filter { !$0.id.isSameId(as: record.id) }.map(\.passkey)
        }
    }

    /// The signed-in user's passkeys, oldest first.
    /// - Throws: `userSessionInvalid`.
    public func passkeys(sessionId: String) throws -> [Passkey] {
        try inspect { tx in
            let (_, user) = try sessionUser(tx, sessionId) { [.rows(PasskeyRecord.ofUser, $0)] }
            return try passkeyRecords(tx, userId: user.id).map(\.passkey)
        }
    }

    /// The origin a simulated browser uses for `rpId` when the caller names none: the first
    /// passkey origin whose host is the RP id — the `default` application's first, then the others'.
    /// - Throws: a store failure.
    public func defaultPasskeyOrigin(rpId: String) throws -> String? {
        try inspect { tx in try defaultPasskeyOrigin(tx, rpId: rpId) }
    }

    func defaultPasskeyOrigin(_ tx: StoreTransaction, rpId: String) throws -> String? {
        let others = try tx.fetchAll(ApplicationRecord.self).filter { $0.id != ApplicationConfig.defaultApplicationId }.map(\.config)
        for app in [try application(tx, nil)] + others {
            if let origin = app.relyingParty.origins.first(where: { WebOrigin.host(of: $0) == rpId }) { return origin }
        }
        return nil
    }

    /// A credential id must be new to the store ("registered already, to anyone": a reset's user's own passkeys too, though the
    /// reset is about to remove them — an authenticator makes a new id for a new credential).
    /// - Throws: `alreadyExists` (kind passkey).
    func requireNewCredentialId(_ tx: StoreTransaction, _ credentialId: [UInt8]) throws {
        let registered = StoreQuery<PasskeyRecord>(where: [StoreFilter(named: "id", .equal, .text(Base64URL.encode(credentialId)))])
        guard try !tx.noneMatch(registered) else { return }
        throw DomainError(.alreadyExists, "This credential is registered already", [(.kind, .string("passkey"))])
    }

    /// What `importedPasskeys` reads: the `default` application (each credential id is checked new
    /// with `noneMatch`).
    static func importReads(_ passkeys: [ImportedPasskey]) -> [StoreRead] {
        passkeys.isEmpty ? [] : [.row(ApplicationRecord.self, id: ApplicationConfig.defaultApplicationId)]
    }

    /// The rows of the passkeys an operator imports with a new user, each checked as a registration would be; writes nothing.
    /// - Throws: `invalidParams` naming the entry, `alreadyExists` (a credential id registered already).
    func importedPasskeys(_ tx: StoreTransaction, _ passkeys: [ImportedPasskey], userId: String) throws -> [PasskeyRecord] {
        guard !passkeys.isEmpty else { return [] }
        // Registered elsewhere, they belong to the `default` application's RP id.
        let rpId = try application(tx, nil).relyingParty.rpId
        var seen: Set<[UInt8]> = []
        return try passkeys.enumerated().map { index, imported in
            let key: COSEKey
            do {
                key = try COSEKey(encoded: imported.publicKey)
            } catch {
                throw DomainError.invalid(
                    .importedPasskey(index: index, member: "publicKey"),
                    "must be a COSE key for ES256, EdDSA or RS256 (RSA of 2048 bits or more)")
            }
            guard (1...1023).contains(imported.credentialId.count), seen.insert(imported.credentialId).inserted else {
                throw DomainError.invalid(
                    .importedPasskey(index: index, member: "credentialId"),
                    "must be 1 to 1023 bytes, once in the list")
            }
            try requireNewCredentialId(tx, imported.credentialId)
            return PasskeyRecord(
                id: Base64URL.encode(imported.credentialId), userId: userId,
                friendlyName: imported.friendlyName ?? Self.defaultPasskeyName, createdAt: now, publicKey: imported.publicKey,
                algorithm: Int64(key.algorithm.rawValue), signCount: imported.signCount ?? 0,
                backupEligible: imported.backupEligible ?? false, backedUp: false, transports: "", aaguid: nil, lastUsedAt: nil,
                rpId: rpId, backupEligibleKnown: imported.backupEligible != nil)
        }
    }
}

/// The transports a phone's platform authenticator reports.
public enum PlatformTransports {
    public static let simulatedPhone = ["hybrid", "internal"]
}

extension PasskeyRecord {
    /// A passkey a registration ceremony verified.
    init(_ verified: VerifiedRegistration, userId: String, friendlyName: String, rpId: String, at time: UnixTime) {
        self.init(
            id: Base64URL.encode(verified.credentialId), userId: userId, friendlyName: friendlyName, createdAt: time,
            publicKey: verified.publicKey, algorithm: Int64(verified.algorithm.rawValue), signCount: Int64(verified.signCount),
            backupEligible: verified.backupEligible, backedUp: verified.backedUp,
            transports: verified.transports.joined(separator: "\n"), aaguid: verified.aaguid, lastUsedAt: nil, rpId: rpId,
            backupEligibleKnown: true)
    }
}
