import LatchkeyContract

/// Identifier formats of the contract.
public enum Identifiers {
    /// E.164: `+` and 2 to 15 digits, not starting with 0.
    public static func isPhoneNumber(_ text: String) -> Bool {
        let chars = Array(text.utf8)
        guard chars.count >= 3, chars.count <= 16, chars[0] == UInt8(ascii: "+"), chars[1] != UInt8(ascii: "0") else { return false }
        return chars.dropFirst().allSatisfy { $0 >= 48 && $0 <= 57 }
    }

    /// A plausible address: something, `@`, a domain with a dot; no spaces, no line breaks, at most
    /// 254 characters.
    public static func isEmail(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 < 0x80 } ? isASCIIEmail(text.utf8) : isEmailByCharacters(text)
    }

    /// `isEmail` of an ASCII text, byte by byte: there a character is a byte, but for CR LF, which
    /// the line-break rule refuses anyway.
    static func isASCIIEmail(_ bytes: String.UTF8View) -> Bool {
        let breaks = UInt8(ascii: "\n")...UInt8(ascii: "\r")  // LF, VT, FF, CR
        guard bytes.count <= 254, !bytes.contains(where: { $0 == UInt8(ascii: " ") || breaks.contains($0) }),
            let at = bytes.firstIndex(of: UInt8(ascii: "@"))
        else { return false }
        let domain = bytes[bytes.index(after: at)...]
        let dot = UInt8(ascii: ".")
        return at != bytes.startIndex && !domain.contains(UInt8(ascii: "@")) && domain.contains(dot) && domain.first != dot && domain.last != dot
    }

    /// `isEmail` of any text: its length counted in code points (a grapheme cluster may take any number of them).
    static func isEmailByCharacters(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix(".") else { return false }
        return !text.contains(where: { $0 == " " || $0.isNewline }) && text.unicodeScalars.count <= 254
    }
}

extension Latchkey {
    /// Creates a user (the identifiers come in the contract's formats: see `Identifiers`).
    ///
    /// Emails compare case-insensitively.
    /// - Throws: `alreadyExists`.
    public func createUser(_ new: NewUser) throws -> String {
        // The slow hash is computed before the write lock is taken.
        let credential = try new.password.map { password in
            let salt = random.bytes(16)
            return (salt: salt, hash: try PasswordHash.hash(password, salt: salt))
        }
        return try transact { tx, effects in
            let userId = new.userId ?? random.identifier("usr")
            let identifiers = [
                new.email.map(UserIdentifier.email), new.phoneNumber.map(UserIdentifier.phoneNumber), new.loginName.map(UserIdentifier.loginName),
            ]
            tx.willRead(
                [.row(UserRecord.self, id: userId)] + identifiers.compactMap { $0?.lookup.read }
                    + (new.passkeyUserHandle.map { [.rows(Self.userHoldingHandle($0))] } ?? []) + Self.importReads(new.passkeys))
            if try tx.fetch(UserRecord.self, id: userId) != nil {
                throw DomainError(.alreadyExists, "A user with this userId exists already", [(.kind, .string("user"))])
            }
            if let email = new.email, try user(tx, matching: .email(email)) != nil {
                throw DomainError(.alreadyExists, "A user with this email exists already", [(.kind, .string("user"))])
            }
            if let phone = new.phoneNumber, try user(tx, matching: .phoneNumber(phone)) != nil {
                throw DomainError(.alreadyExists, "A user with this phone number exists already", [(.kind, .string("user"))])
            }
            if let name = new.loginName, try user(tx, matching: .loginName(name)) != nil {
                throw DomainError(.alreadyExists, "A user with this login name exists already", [(.kind, .string("user"))])
            }
            if let handle = new.passkeyUserHandle, try tx.fetchAll(Self.userHoldingHandle(handle)).first != nil {
                throw DomainError(.alreadyExists, "Another user holds this passkey user handle", [(.kind, .string("user"))])
            }
            // Every refusal comes before the first write: a domain error commits what was written.
            let passkeys = try importedPasskeys(tx, new.passkeys, userId: userId)
            try tx.save(
                UserRecord(
                    id: userId, email: new.email, emailKey: new.email?.lowercased(), phoneNumber: new.phoneNumber,
                    passwordHash: credential?.hash, passwordSalt: credential?.salt, birthDate: new.birthDate, attributes: new.attributes,
                    createdAt: now, loginName: new.loginName,
                    passkeyUserHandle: new.passkeyUserHandle ?? (new.passkeys.isEmpty ? nil : random.bytes(32))))
            for passkey in passkeys { try tx.save(passkey) }
            try audit(tx, effects, .userCreated, userId: userId)
            return userId
        }
    }

    /// The user an identifier names, if any.
    func user(_ tx: StoreTransaction, matching identifier: UserIdentifier) throws -> UserRecord? {
        try identifier.lookup.user(tx)
    }

    /// The user an identifier names, if any, for an answer that must not tell which (security property 11).
    ///
    /// Both sides make one read that finds a user and one that finds none, of the lookup's kind (`UserLookup.twin`), and decode one
    /// user: a known identifier's lookup, then a read of no one (`nobody`); an unknown one's lookup, then the decoy user (`decoy`,
    /// else `decoyUserId`), thrown away. The second goes with COMMIT (`StoreTransaction.readAtCommit`), so a read set names the
    /// lookup alone: one that also named the decoy and no one had PostgreSQL answer a known identifier's transaction a row more, and
    /// a lookup that finds no one and reads nothing after is told apart on any store; `bench/enumeration.py` measures both (z of 5
    /// to 14 over 300 calls, where |z| < 3 is the goal).
    func userTellingNothing(_ tx: StoreTransaction, matching identifier: UserIdentifier, decoy: String? = nil) throws -> UserRecord? {
        let lookup = identifier.lookup
        let user = try lookup.user(tx)
        let balancing = user == nil ? decoy ?? decoyUserId : Self.nobody
        if let user { lastUserFound.withLock { $0 = user.id } }
        try tx.readAtCommit(lookup.twin(userId: balancing).query)
        return user
    }

    /// A user id no user has (user ids are never empty): what a verification code sent for an unknown
    /// identifier records as its user, and the read of no one.
    static let nobody = ""

    /// Whose rows an identifier that names nobody reads in place of its own: the user
    /// `userTellingNothing` found last in this process (`nobody` before it found anyone).
    ///
    /// A call that reads the decoy's rows takes it once (the server runs requests one at a time); an embedder calling from several
    /// threads at once may see it change between calls, never within one.
    var decoyUserId: String { lastUserFound.withLock { $0 } ?? Self.nobody }

    /// The read of the user who holds a passkey user handle.
    static func userHoldingHandle(_ handle: [UInt8]) -> StoreQuery<UserRecord> {
        StoreQuery(where: [.equals(UserRecord.Columns.passkeyUserHandle, handle)], limit: 1)
    }

    func user(_ tx: StoreTransaction, _ userId: String) throws -> UserRecord {
        guard let user = try tx.fetch(UserRecord.self, id: userId) else { throw DomainError.notFound("user") }
        return user
    }

    /// Queues a security notice to the user's email (else phone); users with neither get none.
    func sendSecurityNotice(_ effects: Effects, to user: UserRecord, at time: UnixTime? = nil, _ text: String) {
        guard let (channel, address) = user.noticeAddress else { return }
        effects.append(
            .delivery(
                OutboundMessage(
                    id: random.identifier("msg"), channel: channel, to: address,
                    purpose: .securityNotice, text: text, sentAt: time ?? now)))
    }
}
