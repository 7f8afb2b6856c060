import LatchkeyContract

extension UserRecord {
    /// Where notices go: the email on file, else the phone.
    var noticeAddress: (DeliveryChannel, String)? {
        if let email { return (.email, email) }
        if let phoneNumber { return (.sms, phoneNumber) }
        return nil
    }
}

/// What an operator gives to create a user.
public struct NewUser: Sendable {
    public var userId: String?
    public var email: String?
    public var phoneNumber: String?
    public var password: String?
    public var birthDate: String?
    /// Passkeys registered with another Relying Party, imported as they are.
    public var passkeys: [ImportedPasskey]
    /// The user's WebAuthn user handle there (default: random bytes made on first use).
    public var passkeyUserHandle: [UInt8]?
    public var attributes: String?
    public var loginName: String?

    public init(
        userId: String? = nil, email: String? = nil, phoneNumber: String? = nil, password: String? = nil,
        birthDate: String? = nil, passkeys: [ImportedPasskey] = [], passkeyUserHandle: [UInt8]? = nil,
        attributes: String? = nil, loginName: String? = nil
    ) {
        self.passkeyUserHandle = passkeyUserHandle
        self.loginName = loginName
        self.userId = userId
        self.email = email
        self.phoneNumber = phoneNumber
        self.password = password
        self.birthDate = birthDate
        self.passkeys = passkeys
        self.attributes = attributes
    }
}

/// How a user names themselves: an email (compared case-insensitively), a phone number, a login
/// name or a userId.
public enum UserIdentifier: Sendable, Equatable {
    case email(String)
    case phoneNumber(String)
    case loginName(String)
    case userId(String)

    /// A stable key for limits and codes kept per identifier.
    var key: String {
        switch self {
        case .email(let email): return "email:" + email.lowercased()
        case .phoneNumber(let phone): return "phone:" + phone
        case .loginName(let name): return "login:" + name
        case .userId(let userId): return "userId:" + userId
        }
    }

    /// How the store finds the user it names.
    var lookup: UserLookup {
        switch self {
        case .email(let email): return .first(.equals(UserRecord.Columns.emailKey, email.lowercased()))
        case .phoneNumber(let phone): return .first(.equals(UserRecord.Columns.phoneNumber, phone))
        case .loginName(let name): return .first(.equals(UserRecord.Columns.loginName, name))
        case .userId(let userId): return .id(userId)
        }
    }
}

/// How the store finds the user an identifier names: by id, or the first user whose column holds it
/// (emails by their lowercased key).
enum UserLookup {
    case id(String)
    case first(StoreFilter)

    /// The id of the user it finds, as a key other reads find rows by (that user's passkeys).
    var key: StoreKey {
        switch self {
        case .id(let userId): return .value(userId)
        case .first(let filter): return .ids(of: UserRecord.self, where: [filter])
        }
    }

    /// The read `user` makes, to state ahead.
    var read: StoreRead {
        switch self {
        case .id(let userId): return .row(UserRecord.self, id: userId)
        case .first(let filter): return .rows(StoreQuery<UserRecord>(where: [filter], limit: 1))
        }
    }

    /// The same kind of read for another user id: a key read for a key read, a query for a query (their costs differ, and an answer
    /// that must not tell whom it found makes alike reads either way: `userTellingNothing`).
    func twin(userId: String) -> UserLookup {
        switch self {
        case .id: return .id(userId)
        case .first: return .first(.equals(UserRecord.Columns.id, userId))
        }
    }

    /// `user`'s read as a query (a key read: the one row of that id).
    var query: StoreQuery<UserRecord> {
        switch self {
        case .id(let userId): return StoreQuery(where: [.equals(UserRecord.Columns.id, userId)], limit: 1)
        case .first(let filter): return StoreQuery(where: [filter], limit: 1)
        }
    }

    /// The user, if any.
    func user(_ tx: StoreTransaction) throws -> UserRecord? {
        switch self {
        case .id(let userId): return try tx.fetch(UserRecord.self, id: userId)
        case .first(let filter): return try tx.fetchAll(StoreQuery<UserRecord>(where: [filter], limit: 1)).first
        }
    }
}
