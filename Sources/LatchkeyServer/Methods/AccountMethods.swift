import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

/// Users, sessions and grace-period account recovery.
enum AccountMethods {
    static let all: [any RPCMethod.Type] = [
        Login.self, Logout.self, GetUser.self, Passkeys.self, RecoveryStart.self, RecoveryStatus.self, RecoveryCancel.self,
        RecoveryResetPassword.self,
    ]

    /// `{sessionId}`.
    struct SessionParams: WireReadable {
        var sessionId = ""
        static let fields: [WireField<Self>] = [.required("sessionId", \.sessionId, .identifier)]
    }

    /// `{accountRecovery}`.
    struct RecoveryResult: WireObject {
        var accountRecovery: AccountRecoveryStatus
        static let fields: [WireField<Self>] = [.required("accountRecovery", \.accountRecovery, .object(AccountRecoveryStatus.self))]
    }

    enum Login: RPCMethod {
        static let name = "user/login"
        static let summary = "Signs in by email or userId; a new session cancels a grace period or insecure window (state 2, reason 2)."
        static let errors: [ErrorReason] = [.invalidCredentials, .rateLimited]
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
        static let name = "user/logout"
        static let summary = "Ends the session, or every session of the user with all."
        static let errors: [ErrorReason] = [.userSessionInvalid]
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

    enum GetUser: RPCMethod {
        static let name = "user/get"
        static let summary = "The signed-in user, with accountRecovery (null before the first start)."
        static let errors: [ErrorReason] = [.userSessionInvalid]
        static func handle(_ params: SessionParams, _ context: CallContext) throws -> UserProfile {
            try context.core.profile(sessionId: params.sessionId)
        }
    }

    /// `{passkeys}`.
    struct PasskeyList: WireObject {
        var passkeys: [Passkey]
        static let fields: [WireField<Self>] = [.required("passkeys", \.passkeys, .array(.object(Passkey.self)))]
    }

    enum Passkeys: RPCMethod {
        static let name = "user/passkeys"
        static let summary = "The signed-in user's passkeys."
        static let errors: [ErrorReason] = [.userSessionInvalid]
        static func handle(_ params: SessionParams, _ context: CallContext) throws -> PasskeyList {
            PasskeyList(passkeys: try context.core.passkeys(sessionId: params.sessionId))
        }
    }

    enum RecoveryStart: RPCMethod {
        static let name = "accountRecovery/start"
        static let summary = "Asks for a password reset: a grace period starts (from states 0, 2, 4)."
        static let errors: [ErrorReason] = [.userSessionInvalid, .accountRecoveryNotAllowed]
        static func handle(_ params: SessionParams, _ context: CallContext) throws -> RecoveryResult {
            RecoveryResult(accountRecovery: try context.core.startAccountRecovery(sessionId: params.sessionId))
        }
    }

    enum RecoveryStatus: RPCMethod {
        static let name = "accountRecovery/status"
        static let summary = "The status and the settings-screen copy for it."
        static let errors: [ErrorReason] = [.userSessionInvalid]
        struct Result: WireObject {
            var accountRecovery: AccountRecoveryStatus?
            var settingsItem: SettingsItem
            static let fields: [WireField<Self>] = [
                .nullable("accountRecovery", \.accountRecovery, .object(AccountRecoveryStatus.self)),
                .required("settingsItem", \.settingsItem, .object(SettingsItem.self)),
            ]
        }
        static func handle(_ params: SessionParams, _ context: CallContext) throws -> Result {
            let (status, item) = try context.core.accountRecoveryStatus(sessionId: params.sessionId)
            return Result(accountRecovery: status, settingsItem: item)
        }
    }

    enum RecoveryCancel: RPCMethod {
        static let name = "accountRecovery/cancel"
        static let summary = "Cancels a grace period (state 2, reason 1)."
        static let errors: [ErrorReason] = [.userSessionInvalid, .accountRecoveryNotAllowed]
        static func handle(_ params: SessionParams, _ context: CallContext) throws -> RecoveryResult {
            RecoveryResult(accountRecovery: try context.core.cancelAccountRecovery(sessionId: params.sessionId))
        }
    }

    enum RecoveryResetPassword: RPCMethod {
        static let name = "accountRecovery/resetPassword"
        static let summary = "Sets a new password without the old one (state 3 only); back to state 0."
        static let errors: [ErrorReason] = [.userSessionInvalid, .accountRecoveryNotAllowed, .policyViolation]
        struct Params: WireReadable {
            var sessionId = ""
            var newPassword = ""
            static let fields: [WireField<Self>] = [
                .required("sessionId", \.sessionId, .identifier), .required("newPassword", \.newPassword, .text),
            ]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> RecoveryResult {
            RecoveryResult(accountRecovery: try context.core.resetPasswordInWindow(sessionId: params.sessionId, newPassword: params.newPassword))
        }
    }
}
