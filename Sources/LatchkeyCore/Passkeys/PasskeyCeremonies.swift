import LatchkeyContract

/// What a passkey ceremony is for.
enum PasskeyCeremonyKind: String, Sendable {
    /// `passkey/creationOptions` → `passkey/create`.
    case create
    /// `passkey/requestOptions` → `passkey/login`.
    case get
    /// `reset/passkeyCreationOptions` → `reset/resetPasskeys`.
    case reset
    /// `operation/passkeyOptions` → `operation/passkeyApprove`.
    case operation
}

/// A ceremony just opened: the id it is named by (handed out, never stored) and its challenge.
struct OpenedCeremony {
    let id: String
    let challenge: [UInt8]
}

extension Latchkey {
    /// A ceremony is valid this long.
    static let passkeyCeremonyLifetime: Int64 = 300
    /// What the options tell the browser, in milliseconds.
    static let passkeyTimeoutMilliseconds = 300_000
    /// A user holds at most this many passkeys.
    public static let maxPasskeysPerUser = 25
    /// The algorithms a new passkey may use, most preferred first: ES256, EdDSA, RS256.
    static let passkeyAlgorithms: [COSEAlgorithm] = [.es256, .eddsa, .rs256]

    /// Opens a ceremony with a fresh challenge (and forgets ceremonies expired a day ago: until then one answers `sessionExpired`).
    ///
    /// `openedBy` is what authorised a creation ceremony (a session's id, a verification code's):
    /// when it ends, the ceremony is void (see `requireOpenerLive`).
    func openCeremony(
        _ tx: StoreTransaction, _ kind: PasskeyCeremonyKind, applicationId: String, userId: String?,
        named: Bool, openedBy: String? = nil, challenge: [UInt8]? = nil, operationId: String? = nil, nonce: String? = nil
    ) throws -> OpenedCeremony {
        try tx.deleteAll(
            PasskeyCeremonyRecord.self,
            where: [ExpiredRows.forgotten(PasskeyCeremonyRecord.Columns.expiresAt, now: now)])
        let ceremonyId = random.uuid()
        let ceremony = PasskeyCeremonyRecord(
            id: ceremonyKey(ceremonyId), kind: kind.rawValue, applicationId: applicationId, userId: userId, named: named,
            challenge: challenge ?? random.bytes(32), expiresAt: now + Self.passkeyCeremonyLifetime, createdAt: now, openedBy: openedBy,
            operationId: operationId, nonce: nonce)
        try tx.save(ceremony)
        return OpenedCeremony(id: ceremonyId, challenge: ceremony.challenge)
    }

    /// The key a ceremony's row is stored and found by: the keyed hash of its ceremonyId (122
    /// random bits; `Latchkey.secretHash`, as for tokens and session ids), so that
    /// the store alone does not hold what names a ceremony (security property 1: a creation
    /// ceremony's id and challenge, read from the store, would let anyone add their own passkey).
    func ceremonyKey(_ ceremonyId: String) -> String { secretHash(ceremonyId, purpose: "passkey-ceremony") }

    /// What an operation on a ceremony reads first: the ceremony, its application and user, what
    /// opened it (a session), and the user's passkeys.
    static func ceremonyReads(key: String) -> [StoreRead] {
        let ceremony = StoreKey.value(key)
        let owner = StoreKey.column(PasskeyCeremonyRecord.Columns.userId, of: PasskeyCeremonyRecord.self, ceremony)
        return [
            .row(PasskeyCeremonyRecord.self, id: ceremony),
            .row(ApplicationRecord.self, id: .column(PasskeyCeremonyRecord.Columns.applicationId, of: PasskeyCeremonyRecord.self, ceremony)),
            .row(UserRecord.self, id: owner), .rows(PasskeyRecord.ofUser, owner),
            .row(UserSessionRecord.self, id: .column(PasskeyCeremonyRecord.Columns.openedBy, of: PasskeyCeremonyRecord.self, ceremony)),
        ]
    }

    /// The ceremony `key` names, of one of `kinds` and not `foreign` to the caller, still valid.
    ///
    /// Nothing is used up here. Foreign comes before expired: an old ceremony of another user's is as unknown as a fresh one.
    /// - Throws: `noSessionInProgress` (unknown, used, of another kind or foreign, at any age, or forgotten: see `ExpiredRows`), then
    ///   `sessionExpired`.
    func liveCeremony(
        _ tx: StoreTransaction, key: String, _ kinds: PasskeyCeremonyKind..., foreign: (PasskeyCeremonyRecord) -> Bool = { _ in false }
    ) throws -> PasskeyCeremonyRecord {
        guard let ceremony = try tx.fetch(PasskeyCeremonyRecord.self, id: key),
            kinds.contains(where: { $0.rawValue == ceremony.kind }), !foreign(ceremony),
            !ExpiredRows.isForgotten(expiresAt: ceremony.expiresAt, now: now)
        else {
            throw DomainError(.noSessionInProgress, "No passkey ceremony of this kind is open with this ceremonyId")
        }
        guard now < ceremony.expiresAt else {
            throw DomainError(.sessionExpired, "The passkey ceremony is older than 300 seconds; ask for new options")
        }
        return ceremony
    }

    /// A creation ceremony whose session ended, or whose verification code was used up or
    /// replaced, is void (security property 10): `isLive` says whether what opened it still is.
    /// - Throws: `noSessionInProgress` when it is not.
    func requireOpenerLive(_ ceremony: PasskeyCeremonyRecord, _ isLive: (String) throws -> Bool) throws {
        guard let opener = ceremony.openedBy, try isLive(opener) else {
            throw DomainError(
                .noSessionInProgress, "The passkey ceremony ended with the session or the verification code that opened it; start again")
        }
    }

    /// The user handle of `user`, made (32 random bytes) and kept on first use.
    func passkeyUserHandle(_ tx: StoreTransaction, _ user: UserRecord) throws -> [UInt8] {
        if let handle = user.passkeyUserHandle { return handle }
        var updated = user
        let handle = random.bytes(32)
        updated.passkeyUserHandle = handle
        try tx.save(updated)
        return handle
    }

    /// The name a browser shows for the user: email, else login name, else phone number, else userId.
    static func passkeyDisplayName(_ user: UserRecord) -> String {
        user.email ?? user.loginName ?? user.phoneNumber ?? user.id
    }

    /// The user's passkeys, oldest first.
    func passkeyRecords(_ tx: StoreTransaction, userId: String) throws -> [PasskeyRecord] {
        try tx.fetchAll(PasskeyRecord.ofUser, userId)
    }

    /// The user's passkeys registered under `rpId`, oldest first: what options list.
    ///
    /// A passkey signs in through applications of its own RP id only. Of those `query` reads: all, or the first.
    func passkeyRecords(
        _ tx: StoreTransaction, userId: String, rpId: String, of query: KeyedQuery<PasskeyRecord> = PasskeyRecord.ofUser
    ) throws -> [PasskeyRecord] {
        try tx.fetchAll(query, userId).filter { $0.belongs(to: rpId) }
    }

    /// - Throws: `policyViolation` (`tooManyPasskeys`) for a user who holds the most passkeys allowed.
    func requireRoomForPasskey(_ tx: StoreTransaction, userId: String) throws {
        guard try passkeyRecords(tx, userId: userId).count < Self.maxPasskeysPerUser else {
            throw DomainError(
                .policyViolation, "The user holds \(Self.maxPasskeysPerUser) passkeys; remove one first",
                [(.violations, .strings(["tooManyPasskeys"]))])
        }
    }

    /// Creation options for `user` on the ceremony just opened.
    func creationOptions(
        _ tx: StoreTransaction, _ ceremony: OpenedCeremony, _ user: UserRecord,
        _ app: ApplicationConfig
    ) throws -> CredentialCreationOptions {
        let name = Self.passkeyDisplayName(user)
        let handle = try passkeyUserHandle(tx, user)
        let party = app.relyingParty
        let exclude = try passkeyRecords(tx, userId: user.id, rpId: party.rpId).compactMap(\.descriptor)
        return CredentialCreationOptions(
            ceremonyId: ceremony.id, rpId: party.rpId, rpName: party.rpName,
            user: PasskeyUserEntity(id: handle, name: name, displayName: name), challenge: ceremony.challenge,
            algorithms: Self.passkeyAlgorithms.map { Int($0.rawValue) }, timeout: Self.passkeyTimeoutMilliseconds,
            excludeCredentials: exclude, userVerification: party.userVerification)
    }
}

extension PasskeyRecord {
    /// A user's passkeys (at most `Latchkey.maxPasskeysPerUser`), oldest first.
    static let ofUser = KeyedQuery<PasskeyRecord>(Columns.userId)
    /// A user's first passkey: what the decoy user stands in with (`passkeyRequestOptions`).
    static let firstOfUser = KeyedQuery<PasskeyRecord>(Columns.userId, limit: 1)

    var transportList: [String] { transports.split(separator: "\n").map(String.init) }

    /// How options name it (nil for an id that is not base64url, which no path writes).
    var descriptor: PasskeyDescriptor? { Base64URL.decode(id).map { PasskeyDescriptor(id: $0, transports: transportList) } }

    /// The caller's view.
    var passkey: Passkey {
        Passkey(
            id: id, friendlyName: friendlyName, createdAt: createdAt, lastUsedAt: lastUsedAt, algorithm: Int(algorithm ?? 0),
            backupEligible: backupEligible, backedUp: backedUp, transports: transportList,
            aaguid: aaguid ?? "00000000-0000-0000-0000-000000000000")
    }
}
