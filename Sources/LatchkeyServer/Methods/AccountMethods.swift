import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeySimulator
import LatchkeyJSON
import LatchkeyRPC

/// Users, sessions and grace-period account recovery.
enum AccountMethods {
    // Concrete types here, so each entry's decoding and encoding is specialised (no generic
    // metadata lookups per call).
    static let all: [MethodEntry] = [
        .init(Login.self), .init(Logout.self), .init(GetUser.self), .init(Passkeys.self), .init(RecoveryStart.self),
        .init(RecoveryStatus.self), .init(RecoveryCancel.self), .init(RecoveryResetPassword.self),
    ]

    /// `{accountRecovery}`.
    static let recoveryResult = Codec.member("accountRecovery", Codec<AccountRecoveryStatus>.object(AccountRecoveryStatus.self))

    enum Login: RPCMethod {
        static let declaration = MethodDeclaration(
            "user/login", "Signs in by email or userId; a new session cancels a grace period or insecure window (state 2, reason 2).",
            description: """
            Signs a user in with email or userId and password and answers a sessionId for the user/ and \
            accountRecovery/ methods. A new session cancels a grace period or insecure window in progress. Five failed \
            logins for one identifier within 15 minutes answer rateLimited.
            """,
            errors: [.invalidCredentials, .rateLimited])
        struct Params: WireReadable {
            var email: String?
            var userId: String?
            var password = ""
            static let fields: [WireField<Self>] = [
                .optional("email", \.email, .text), .optional("userId", \.userId, .text), .required("password", \.password, .text),
            ]
            static let rules: [WireRule<Self>] = [.exactlyOne("email", \.email, "userId", \.userId)]
            var identifier: UserIdentifier { email.map(UserIdentifier.email) ?? .userId(userId ?? "") }
        }
        struct Result: WireObject {
            var sessionId: String
            var uid: String
            static let fields: [WireField<Self>] = [.required("sessionId", \.sessionId, .text), .required("uid", \.uid, .text)]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> Result {
            let session = try context.core.login(params.identifier, password: params.password)
            return Result(sessionId: session.sessionId, uid: session.uid)
        }
    }

    enum Logout: RPCMethod {
        static let declaration = MethodDeclaration(
            "user/logout", "Ends the session, or every session of the user with all.",
            description: "Ends the session, or with all every session of its user.",
            errors: [.userSessionInvalid])
        struct Params: WireReadable {
            var sessionId = ""
            var all = false
            static let fields: [WireField<Self>] = [
                .required("sessionId", \.sessionId, .identifier), .defaulted("all", \.all, .bool, default: false, "end every session of the user"),
            ]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> EmptyResult {
            try context.core.logout(sessionId: params.sessionId, all: params.all)
            return EmptyResult()
        }
    }

    enum GetUser: SessionCall {
        static let declaration = MethodDeclaration(
            "user/get", "The signed-in user, with accountRecovery (null before the first start).",
            description: """
            Reads the signed-in user: uid, email, phone number and the account-recovery status (null before the first \
            accountRecovery/start).
            """,
            errors: [.userSessionInvalid])
        typealias Result = UserProfile
        static func call(_ core: Latchkey, sessionId: String) throws -> UserProfile { try core.profile(sessionId: sessionId) }
    }


    enum Passkeys: SessionCall {
        static let declaration = MethodDeclaration("user/passkeys", "The signed-in user's passkeys.",
            description: """
            Lists the signed-in user's passkeys, oldest first: id (the credential id), friendly name, creation and last \
            use, COSE algorithm, backup eligibility and state, transports and AAGUID.
            """,
            errors: [.userSessionInvalid])
        static let result = passkeyListCodec
        static func call(_ core: Latchkey, sessionId: String) throws -> [Passkey] { try core.passkeys(sessionId: sessionId) }
    }

    enum RecoveryStart: SessionCall {
        static let declaration = MethodDeclaration(
            "accountRecovery/start", "Asks for a password reset: a grace period starts (from states 0, 2, 4).",
            description: """
            Asks for a password reset without the old password: a grace period starts (state 1, 72 h by default) and a \
            security notice goes out; when it ends unchallenged the insecure window opens (state 3). Allowed from \
            states none, cancelled and expired.
            """,
            errors: [.userSessionInvalid, .accountRecoveryNotAllowed])
        static let result = recoveryResult
        static func call(_ core: Latchkey, sessionId: String) throws -> AccountRecoveryStatus {
            try core.startAccountRecovery(sessionId: sessionId)
        }
    }

    enum RecoveryStatus: SessionCall {
        static let declaration = MethodDeclaration(
            "accountRecovery/status", "The status and the settings-screen copy for it.",
            description: """
            Reads the account-recovery status (state, reason, start and end times) with the settings-screen copy for \
            it (title, subtitle, whether it can be cancelled). Due transitions are applied first.
            """,
            errors: [.userSessionInvalid])
        struct Result: WireObject {
            var accountRecovery: AccountRecoveryStatus?
            var settingsItem: SettingsItem
            static let fields: [WireField<Self>] = [
                .nullable("accountRecovery", \.accountRecovery, .object(AccountRecoveryStatus.self)),
                .required("settingsItem", \.settingsItem, .object(SettingsItem.self)),
            ]
        }
        static func call(_ core: Latchkey, sessionId: String) throws -> Result {
            let (status, item) = try core.accountRecoveryStatus(sessionId: sessionId)
            return Result(accountRecovery: status, settingsItem: item)
        }
    }

    enum RecoveryCancel: SessionCall {
        static let declaration = MethodDeclaration(
            "accountRecovery/cancel", "Cancels a grace period (state 2, reason 1).",
            description: "Cancels a grace period in progress (state 2, reason 1, cancelled by the user).",
            errors: [.userSessionInvalid, .accountRecoveryNotAllowed])
        static let result = recoveryResult
        static func call(_ core: Latchkey, sessionId: String) throws -> AccountRecoveryStatus {
            try core.cancelAccountRecovery(sessionId: sessionId)
        }
    }

    enum RecoveryResetPassword: RPCMethod {
        static let declaration = MethodDeclaration(
            "accountRecovery/resetPassword", "Sets a new password without the old one (state 3 only); back to state 0.",
            description: """
            Sets a new password without the old one, only while the insecure window is open (state 3); the account \
            returns to state 0 and every other session of the user ends.
            """,
            errors: [.userSessionInvalid, .accountRecoveryNotAllowed, .policyViolation])
        struct Params: WireReadable {
            var sessionId = ""
            var newPassword = ""
            static let fields: [WireField<Self>] = [
                .required("sessionId", \.sessionId, .identifier), .required("newPassword", \.newPassword, .text),
            ]
        }
        static let result = recoveryResult
        static func handle(_ params: Params, _ context: CallContext) throws -> AccountRecoveryStatus {
            try context.core.resetPasswordInWindow(sessionId: params.sessionId, newPassword: params.newPassword)
        }
    }
}
