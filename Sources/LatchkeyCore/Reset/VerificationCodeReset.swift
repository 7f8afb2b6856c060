import LatchkeyContract

/// Which reset flow a verification code belongs to.
public enum ResetKind: String, Sendable { case accountRecovery, passwordReset }

extension ResetCodeRecord {
    static let lifetime: Int64 = 600
    static let maxWrongTries = 5
    /// A user's live (unconsumed) code: one at most.
    static let liveOf = KeyedQuery<ResetCodeRecord>(Columns.userId, and: [.equals(Columns.consumed, false)], limit: 1)

    /// The live code an identifier that names no user was sent (by the keyed hash of the identifier).
    static func live(subject: String) -> StoreQuery<ResetCodeRecord> { liveFor.query(subject) }
    /// `live(subject:)` as a query kept (built as a user's `liveOf` is: the same work either way, security property 11).
    static let liveFor = KeyedQuery<ResetCodeRecord>(Columns.subject, and: [.equals(Columns.consumed, false)], limit: 1)
}

extension Latchkey {
    /// Sends: 1 per 30 s and 5 per hour per identifier.
    static let resetBurstLimit = RateLimit(scope: "resetSend30s", limit: 1, window: 30)
    static let resetHourLimit = RateLimit(scope: "resetSendHour", limit: 5, window: 3600)

    /// Sends a verification code to the address on file.
    ///
    /// The answer is the same for unknown users and over the send limit (then nothing is sent and the previous code stands).
    /// - Throws: `invalidParams` (redirectUrl not under the application's prefixes), `notFound` (application).
    public func requestReset(_ kind: ResetKind, _ identifier: UserIdentifier, redirectUrl: String, applicationId: String?) throws {
        try checkRedirectUrl(redirectUrl, applicationId: applicationId)
        try transact { tx, effects in
            let subject = secretHash(identifier.key, purpose: "reset")
            tx.willRead(
                [.rows(Self.resetBurstLimit.events(of: subject)), .rows(Self.resetHourLimit.events(of: subject)), identifier.lookup.read])
            // The same random draws whether or not anyone is found or sent to.
            let code = random.digits(6)
            let messageId = random.identifier("msg")
            let codeId = random.identifier("rst")
            if try Self.resetBurstLimit.retryAfter(tx, subject: subject, now: now) != nil
                || Self.resetHourLimit.retryAfter(tx, subject: subject, now: now) != nil
            {
                return
            }
            try Self.resetBurstLimit.record(tx, subject: subject, now: now, id: random.identifier("rate"))
            try Self.resetHourLimit.record(tx, subject: subject, now: now, id: random.identifier("rate"))
            try tx.deleteAll(ResetCodeRecord.self, where: [.equals(ResetCodeRecord.Columns.subject, subject)])
            // The same reads, hashing, writes and message whether or not anyone is found (security
            // property 11); only a user's message leaves. An unknown identifier gets a code no one
            // can know, so later answers (remaining tries, expiry) are the same as for a real user.
            let user = try userTellingNothing(tx, matching: identifier)
            // A user has one code at a time: this one replaces the code a request by any of the
            // user's identifiers sent before (an unknown identifier's key matches no code's user).
            try tx.deleteAll(ResetCodeRecord.self, where: [.equals(ResetCodeRecord.Columns.userId, user?.id ?? subject)])
            try tx.save(
                ResetCodeRecord(
                    id: codeId, subject: subject, userId: user?.id ?? Self.nobody, kind: kind.rawValue,
                    codeHash: secretHash(code, purpose: "reset-code"),
                    expiresAt: now + ResetCodeRecord.lifetime, wrongTries: 0, consumed: false, createdAt: now,
                    applicationId: applicationId))
            let message = resetMessage(kind, identifier, user, code: code, messageId: messageId, redirectUrl: redirectUrl)
            // Named by id or login name, a user with neither email nor phone gets no message.
            guard user == nil || message != nil else { return }
            // An unknown identifier's message goes where a sent one goes, and no further (security property 11).
            if let message { effects.append(user != nil ? .delivery(message) : .withheldDelivery(message)) }
            try audit(tx, effects, .resetRequested, userId: user?.id ?? Self.nobody, detail: kind.rawValue)
        }
    }

    /// The message a reset code leaves in: to the address on file (for an unknown identifier, to the identifier itself, built and never
    /// sent, so both cost the same); nil for a user named by id or login name who has neither email nor phone.
    private func resetMessage(
        _ kind: ResetKind, _ identifier: UserIdentifier, _ user: UserRecord?, code: String, messageId: String, redirectUrl: String
    ) -> OutboundMessage? {
        var query = [("verification_code", code)]
        var message: OutboundMessage
        switch identifier {
        case .email(let email):
            query.append(("email", email))
            message = OutboundMessage(
                id: messageId, channel: .email, to: user?.email ?? email, purpose: .passwordReset, text: "",
                sentAt: now, requestedEmail: email)
        case .phoneNumber(let phone):
            message = OutboundMessage(
                id: messageId, channel: .sms, to: user?.phoneNumber ?? phone, purpose: .passwordReset, text: "",
                sentAt: now, requestedPhoneNumber: phone)
        case .userId(let name), .loginName(let name):
            // Named by id or login name: the code goes where notices go (email, else SMS).
            guard let (channel, address) = user.map({ $0.noticeAddress }) ?? (.email, name) else { return nil }
            message = OutboundMessage(id: messageId, channel: channel, to: address, purpose: .passwordReset, text: "", sentAt: now)
        }
        let link = URLQuery.appending(query, to: redirectUrl)
        message.purpose = kind == .accountRecovery ? .accountRecovery : .passwordReset
        message.code = code
        message.link = link
        message.text =
            kind == .accountRecovery
            ? "Your account recovery code is \(code). Open \(link) to continue. It is valid for 10 minutes."
            : "Your password reset code is \(code). Open \(link) to continue. It is valid for 10 minutes."
        return message
    }

    /// The redirect must start with one of the application's prefixes (checked before anything else).
    /// - Throws: `invalidParams`, `notFound` (application).
    public func checkRedirectUrl(_ redirectUrl: String, applicationId: String?) throws {
        let app = try applicationConfig(applicationId)
        // Byte for byte, as the link is sent (`hasPrefix` would take a look-alike's canonical equivalent).
        guard app.redirectUrlPrefixes.contains(where: { redirectUrl.utf8.starts(with: $0.utf8) }) else {
            throw DomainError.invalid(
                .redirectUrl(allowedPrefixes: app.redirectUrlPrefixes),
                "must start with one of the application's redirectUrlPrefixes")
        }
        // It becomes the message's link, in its text too: a space, a control character, a line or paragraph separator would end
        // the link there, and a bidirectional control would show it otherwise than it reads (as a title may hold none).
        let breaking: (Unicode.Scalar) -> Bool = { scalar in
            let value = scalar.value
            return value <= 0x20 || (0x7F...0x9F).contains(value) || (0x2028...0x2029).contains(value)
                || OperationTexts.isBidirectionalControl(scalar)
        }
        guard !redirectUrl.unicodeScalars.contains(where: breaking) else {
            throw DomainError.invalid(.redirectUrlCharacters, "must hold no space or control character: it becomes the message's link")
        }
    }

    /// What checking a verification code for `identifier` reads before the lookup answers (`checkResetCode`).
    ///
    /// The user it names, and what no user's rows decide (the default application, the server's settings); the rest is stated once
    /// the lookup has answered.
    func resetCodeReads(_ identifier: UserIdentifier) -> [StoreRead] {
        [identifier.lookup.read, .row(ApplicationRecord.self, id: ApplicationConfig.defaultApplicationId)] + Self.accountRecoveryReads(nil)
    }

    /// What checking a code reads once the lookup has answered: the live code (`live`, the user's or the identifier's) and its
    /// application.
    ///
    /// Nothing more of the user until the code has proved right (`resetUserReads`): read before, an identifier that names no one
    /// would read the decoy user's rows in their place, and the decoy is whoever this process found last — a caller's own account,
    /// with as many sessions as they like, made one identifier's check cost what that account holds.
    private func resetCodeReads(live: StoreQuery<ResetCodeRecord>) -> [StoreRead] {
        [.rows(live), .row(ApplicationRecord.self, id: .column(ResetCodeRecord.Columns.applicationId, of: ResetCodeRecord.self, .ids(of: live)))]
    }

    /// What the resets read of the user whose code proved right: sessions, passkeys, account recovery.
    private static func resetUserReads(_ userId: String) -> [StoreRead] {
        let user = StoreKey.value(userId)
        return [.rows(UserSessionRecord.ofUser, user), .rows(PasskeyRecord.ofUser, user)] + accountRecoveryReads(user)
    }

    /// Checks a verification code for `kind` (nil: either).
    ///
    /// A wrong code, or one of the other flow, counts and is not consumed; an expired one does not count. A user has one code, and its
    /// wrong tries are the user's whichever identifier names them; an identifier that matches no user has the code no one can know that its
    /// request left.
    /// - Throws: `verificationCodeInvalid` (with `remainingAttempts`), `verificationCodeExpired`.
    func checkResetCode(
        _ tx: StoreTransaction, _ effects: Effects, _ identifier: UserIdentifier, code: String,
        kind: ResetKind?, consume: Bool = true
    ) throws -> (ResetCodeRecord, UserRecord) {
        let subject = secretHash(identifier.key, purpose: "reset")
        let given = secretHash(code, purpose: "reset-code")
        let decoy = decoyUserId
        let owner = try userTellingNothing(tx, matching: identifier, decoy: decoy)
        let live = owner.map { ResetCodeRecord.liveOf.query($0.id) } ?? ResetCodeRecord.live(subject: subject)
        tx.willRead(resetCodeReads(live: live))
        // A code a day past its expiry is forgotten, whether or not it has been deleted yet (see `ExpiredRows`).
        guard var record = try tx.fetchAll(live).first, !ExpiredRows.isForgotten(expiresAt: record.expiresAt, now: now) else {
            throw DomainError(.verificationCodeInvalid, "The verification code is not valid", [(.remainingAttempts, .int(0))])
        }
        // A code sent for nobody names no user: the decoy user is read in its place with COMMIT and thrown away (security property
        // 11); a user's code is the user's the lookup found.
        let forNobody = record.userId == Self.nobody
        var user: UserRecord?
        if !forNobody {
            // The owner's own id, byte for byte: another user's may be canonically equivalent (`isSameId`).
            if let owner, owner.id.isSameId(as: record.userId) { user = owner } else { user = try tx.fetch(UserRecord.self, id: record.userId) }
        }
        guard now < record.expiresAt else {
            throw DomainError(.verificationCodeExpired, "The verification code has expired; ask for a new one")
        }
        // The code stays bound to the identifier it was sent for; offered with another of the
        // user's identifiers it is a wrong try, on the user's one code.
        let right = SecretHash.constantTimeEquals(given, record.codeHash) && record.subject == subject
        guard right, let user, kind == nil || record.kind == kind?.rawValue else {
            record.wrongTries += 1
            if record.wrongTries >= ResetCodeRecord.maxWrongTries { record.consumed = true }
            try tx.save(record)
            try audit(tx, effects, .resetCodeRejected, userId: forNobody ? Self.nobody : user?.id)
            throw DomainError(
                .verificationCodeInvalid, "The verification code is not valid",
                [(.remainingAttempts, .int(max(ResetCodeRecord.maxWrongTries - record.wrongTries, 0)))])
        }
        if consume {
            record.consumed = true
            try tx.save(record)
        }
        tx.willRead(Self.resetUserReads(user.id))
        return (record, user)
    }

    /// Sets a new password with a verification code; every session of the user ends.
    /// - Throws: `policyViolation` (checked first: neither counts nor consumes), the code errors.
    public func resetPassword(_ identifier: UserIdentifier, code: String, password: String) throws {
        try Self.checkPasswordPolicy(password)
        let salt = random.bytes(16)
        let hash = try PasswordHash.hash(password, salt: salt)
        try transact { tx, effects in
            tx.willRead(resetCodeReads(identifier))
            let (_, user) = try checkResetCode(tx, effects, identifier, code: code, kind: nil)
            try changePassword(
                tx, effects, user: user, salt: salt, hash: hash, keepSession: nil,
                accountRecovery: try settledAccountRecovery(tx, effects, uid: user.id))
            try audit(tx, effects, .resetCompleted, userId: user.id, detail: "password")
        }
    }
}

/// Appends query parameters to a URL, percent-encoded, before any fragment.
enum URLQuery {
    static func appending(_ items: [(String, String)], to url: String) -> String {
        var base = url
        var fragment = ""
        if let hash = url.firstIndex(of: "#") {
            base = String(url[..<hash])
            fragment = String(url[hash...])
        }
        let query = items.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&")
        let separator = base.contains("?") ? (base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&") : "?"
        return base + separator + query + fragment
    }

    /// RFC 3986 unreserved characters stay; everything else is percent-encoded.
    static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(Character(UnicodeScalar(byte)))
            default:
                let hex = Array("0123456789ABCDEF")
                out += "%\(hex[Int(byte >> 4)])\(hex[Int(byte & 15)])"
            }
        }
        return out
    }
}
