import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeySimulator
import LatchkeyJSON
import LatchkeyRPC

/// Verification-code reset of a password or of passkeys.
enum ResetMethods {
    // Concrete types here, so each entry's decoding and encoding is specialised (no generic
    // metadata lookups per call).
    static let all: [MethodEntry] = [
        .init(RequestAccountRecovery.self), .init(RequestPasswordReset.self), .init(UpdatePassword.self),
        .init(ResetPasskeys.self),
    ]

    static let codeErrors: [ErrorReason] = [.verificationCodeInvalid, .verificationCodeExpired]

    /// `email` or `phoneNumber`, exactly one: who asks, and by which channel.
    static func identifier<Root: WireObject>(_ email: WritableKeyPath<Root, String?> & Sendable,
                                             _ phoneNumber: WritableKeyPath<Root, String?> & Sendable) -> [WireField<Root>] {
        [.optional("email", email, .text, "email channel"), .optional("phoneNumber", phoneNumber, .phoneNumber, "SMS channel, E.164")]
    }

    /// Who a reset is for, named by email or phone number (exactly one).
    struct Identified: Sendable {
        var email: String?
        var phoneNumber: String?
        var identifier: UserIdentifier { email.map(UserIdentifier.email) ?? .phoneNumber(phoneNumber ?? "") }
        static let rule = WireRule<Identified>.exactlyOne("email", \.email, "phoneNumber", \.phoneNumber)
    }

    /// `{email | phoneNumber, redirectUrl, applicationId*}`.
    struct RequestParams: WireReadable {
        var who = Identified()
        var redirectUrl = ""
        var applicationId: String?
        static let fields: [WireField<Self>] = identifier(\.who.email, \.who.phoneNumber)
            + [.required("redirectUrl", \.redirectUrl, .text), .applicationId(\.applicationId)]
        // The redirect URL is checked before anything else, the identifier rule included (see `handle`).
    }

    /// A request for a code of one kind.
    protocol CodeRequest: RPCMethod where Params == RequestParams, Result == EmptyResult {
        static var kind: ResetKind { get }
    }

    enum RequestAccountRecovery: CodeRequest {
        static let declaration = MethodDeclaration(
            "reset/requestAccountRecovery", "Sends an account-recovery code and deep link (same answer for unknown users).",
            description: """
            Sends an account-recovery verification code (6 digits, 600 s) and deep link to the user's email or phone, \
            built on a redirectUrl that must start with one of the application's prefixes. Answers the same for \
            unknown users; sends are rate limited. Opening the message fires reset/accountRecoveryCallback.
            """,
            errors: [.notFound])
        static let kind = ResetKind.accountRecovery
    }

    enum RequestPasswordReset: CodeRequest {
        static let declaration = MethodDeclaration(
            "reset/requestPasswordReset", "Sends a password-reset code and link (same answer for unknown users).",
            description: """
            Sends a password-reset verification code (6 digits, 600 s) and link to the user's email or phone, built on \
            a redirectUrl that must start with one of the application's prefixes. Answers the same for unknown users; \
            sends are rate limited.
            """,
            errors: [.notFound])
        static let kind = ResetKind.passwordReset
    }

    enum UpdatePassword: RPCMethod {
        static let declaration = MethodDeclaration(
            "reset/updatePassword", "Sets a new password with a verification code; every session of the user ends.",
            description: """
            Sets a new password with a verification code from reset/requestPasswordReset or \
            reset/requestAccountRecovery; every session of the user ends. The password policy is checked before the \
            code; a wrong code counts against 5 tries.
            """,
            errors: [.policyViolation] + codeErrors)
        struct Params: WireReadable {
            var who = Identified()
            var verificationCode = ""
            var password = ""
            static let fields: [WireField<Self>] = identifier(\.who.email, \.who.phoneNumber)
                + [.required("verificationCode", \.verificationCode, .text), .required("password", \.password, .text)]
            static let rules: [WireRule<Self>] = [Identified.rule.at(\.who)]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> EmptyResult {
            try context.core.resetPassword(params.who.identifier, code: params.verificationCode, password: params.password)
            return EmptyResult()
        }
    }

    enum ResetPasskeys: RPCMethod {
        static let declaration = MethodDeclaration(
            "reset/resetPasskeys", "Removes every passkey and registers the new one, with an account-recovery code.",
            description: """
            With an account-recovery verification code, removes every passkey of the user and registers the new one \
            when given.
            """,
            errors: codeErrors)
        struct Params: WireReadable {
            var who = Identified()
            var verificationCode = ""
            var passkey: PasskeyName?
            static let fields: [WireField<Self>] = identifier(\.who.email, \.who.phoneNumber)
                + [.required("verificationCode", \.verificationCode, .text), .optional("passkey", \.passkey, .object(PasskeyName.self))]
            static let rules: [WireRule<Self>] = [Identified.rule.at(\.who)]
        }
        static let result = AccountMethods.passkeyList
        static func handle(_ params: Params, _ context: CallContext) throws -> [Passkey] {
            try context.core.resetPasskeys(params.who.identifier, code: params.verificationCode, newPasskey: params.passkey?.friendlyName)
        }
    }
}

extension ResetMethods.CodeRequest {
    static func handle(_ params: ResetMethods.RequestParams, _ context: CallContext) throws -> EmptyResult {
        try context.core.checkRedirectUrl(params.redirectUrl, applicationId: params.applicationId)
        try ResetMethods.Identified.rule.enforce(params.who)
        try context.core.requestReset(kind, params.who.identifier, redirectUrl: params.redirectUrl, applicationId: params.applicationId)
        return EmptyResult()
    }
}
