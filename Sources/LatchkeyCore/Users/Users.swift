import LatchkeyContract

/// Identifier formats of the contract.
public enum Identifiers {
    /// E.164: `+` and 2 to 15 digits, not starting with 0.
    public static func isPhoneNumber(_ text: String) -> Bool {
        let chars = Array(text.utf8)
        guard chars.count >= 3, chars.count <= 16, chars[0] == UInt8(ascii: "+"), chars[1] != UInt8(ascii: "0") else { return false }
        return chars.dropFirst().allSatisfy { $0 >= 48 && $0 <= 57 }
    }

    /// A plausible address: something, `@`, a domain with a dot; no spaces.
    public static func isEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix(".") else { return false }
        return !text.contains(where: { $0 == " " || $0.isNewline }) && text.count <= 254
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
            if try tx.fetch(UserRecord.self, id: userId) != nil {
                throw DomainError(.alreadyExists, "A user with this userId exists already", [(.kind, .string("user"))])
            }
            if let email = new.email, try userByEmail(tx, email) != nil {
                throw DomainError(.alreadyExists, "A user with this email exists already", [(.kind, .string("user"))])
            }
            if let phone = new.phoneNumber, try user(tx, matching: .phoneNumber(phone)) != nil {
                throw DomainError(.alreadyExists, "A user with this phone number exists already", [(.kind, .string("user"))])
            }
            if let name = new.loginName, try user(tx, matching: .loginName(name)) != nil {
                throw DomainError(.alreadyExists, "A user with this login name exists already", [(.kind, .string("user"))])
            }
            if let handle = new.passkeyUserHandle,
                try tx.first(UserRecord.self, where: [.equals(UserRecord.Columns.passkeyUserHandle, handle)]) != nil
            {
                throw DomainError(.alreadyExists, "Another user holds this passkey user handle", [(.kind, .string("user"))])
            }
            try tx.save(
                UserRecord(
                    id: userId, email: new.email, emailKey: new.email?.lowercased(), phoneNumber: new.phoneNumber,
                    passwordHash: credential?.hash, passwordSalt: credential?.salt, birthDate: new.birthDate, attributes: new.attributes,
                    createdAt: now, loginName: new.loginName,
                    passkeyUserHandle: new.passkeyUserHandle ?? (new.passkeys.isEmpty ? nil : random.bytes(32))))
            try importPasskeys(tx, new.passkeys, userId: userId)
            try audit(tx, effects, .userCreated, userId: userId)
            return userId
        }
    }

    /// The user an identifier names, if any.
    func user(_ tx: StoreTransaction, matching identifier: UserIdentifier) throws -> UserRecord? {
        switch identifier {
        case .email(let email): return try userByEmail(tx, email)
        case .phoneNumber(let phone): return try tx.first(UserRecord.self, where: [.equals(UserRecord.Columns.phoneNumber, phone)])
        case .loginName(let name): return try tx.first(UserRecord.self, where: [.equals(UserRecord.Columns.loginName, name)])
        case .userId(let userId): return try tx.fetch(UserRecord.self, id: userId)
        }
    }

    func userByEmail(_ tx: StoreTransaction, _ email: String) throws -> UserRecord? {
        try tx.first(UserRecord.self, where: [.equals(UserRecord.Columns.emailKey, email.lowercased())])
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
