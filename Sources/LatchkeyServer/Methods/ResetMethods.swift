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
        .init(ResetPasskeys.self), .init(PasskeyCreationOptions.self),
    ]

    static let codeErrors: [ErrorReason] = [.verificationCodeInvalid, .verificationCodeExpired]

    /// `email` or `phoneNumber`, exactly one: who asks, and by which channel.
    static func identifier<Root: WireObject>(_ email: WritableKeyPath<Root, String?> & Sendable,
                                             _ phoneNumber: WritableKeyPath<Root, String?> & Sendable) -> [WireField<Root>] {
        [.optional("email", email, .text, "email channel"), .optional("phoneNumber", phoneNumber, .text, "SMS channel, E.164")]
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
            when given: {deviceId} has the simulated phone make it in the same call (options, creation, verification), \
            {ceremonyId, credential} registers one an outside authenticator made from reset/passkeyCreationOptions. \
            The code is checked first (a wrong one counts), then the ceremony, then the credential; a credential that \
            fails its checks answers passkeyInvalid, uses up the ceremony only and leaves the old passkeys in place.
            """,
            errors: codeErrors + [.noSessionInProgress, .sessionExpired, .passkeyInvalid, .alreadyExists, .notFound,
                                  .biometryFailed, .biometryCancelled])
        struct Params: WireReadable {
            var who = Identified()
            var verificationCode = ""
            var passkey: NewPasskey?
            static let fields: [WireField<Self>] = identifier(\.who.email, \.who.phoneNumber)
                + [.required("verificationCode", \.verificationCode, .text),
                   .optional("passkey", \.passkey, .object(NewPasskey.self), "{deviceId, friendlyName*} or {ceremonyId, credential, friendlyName*}")]
            static let rules: [WireRule<Self>] = [Identified.rule.at(\.who)]
        }
        static let result = passkeyListCodec
        static func handle(_ params: Params, _ context: CallContext) throws -> [Passkey] {
            let identifier = params.who.identifier
            let code = params.verificationCode
            guard let passkey = params.passkey else {
                return try context.core.resetPasskeys(identifier, code: code, newPasskey: nil)
            }
            if let ceremonyId = passkey.ceremonyId, let credential = passkey.credential {
                return try context.core.resetPasskeys(
                    identifier, code: code, newPasskey: ResetPasskey(ceremonyId: ceremonyId, response: credential, friendlyName: passkey.friendlyName))
            }
            guard let deviceId = passkey.deviceId else { throw DomainError.invalid(.newPasskey, NewPasskey.shapeMessage) }
            // The seed's one SDK call: the phone's browser and authenticator make the passkey from the
            // reset's options, and the server verifies it, in one transaction.
            let origin = try SimulatedBrowser.origin(nil, rpId: try context.core.applicationConfig(nil).relyingParty.rpId, core: context.core)
            return try context.devices.withDevice(deviceId) { device, session in
                let options = try session.resetPasskeyCreationOptions(identifier, code: code, applicationId: nil)
                let response = try SimulatedBrowser.create(options, origin: origin, on: device)
                return try session.resetPasskeys(identifier, code: code,
                                                 newPasskey: ResetPasskey(ceremonyId: options.ceremonyId, response: response,
                                                                          friendlyName: passkey.friendlyName))
            }
        }
    }

    /// The new passkey of a reset: `{deviceId, friendlyName*}` or `{ceremonyId, credential, friendlyName*}`.
    struct NewPasskey: WireReadable {
        var deviceId: String?
        var ceremonyId: String?
        var credential: RegistrationResponse?
        var friendlyName: String?
        static let shapeMessage = "must be {deviceId, friendlyName*} or {ceremonyId, credential, friendlyName*}"
        static let fields: [WireField<Self>] = [
            .optional("deviceId", \.deviceId, .identifier, "the simulated phone makes the passkey"),
            .optional("ceremonyId", \.ceremonyId, .identifier, "from reset/passkeyCreationOptions"),
            .optional("credential", \.credential, .registrationResponse, "RegistrationResponseJSON"),
            .optional("friendlyName", \.friendlyName, .string(minLength: 1, maxLength: 64), "defaults to Passkey"),
        ]
        static let rules: [WireRule<Self>] = [.custom { value, path, problems in
            let byDevice = value.deviceId != nil
            let byCeremony = value.ceremonyId != nil || value.credential != nil
            if byDevice == byCeremony {
                problems.append(ParamProblem(path, shapeMessage))
            } else if byCeremony, value.ceremonyId == nil {
                problems.append(ParamProblem("\(path).ceremonyId", "is required with credential"))
            } else if byCeremony, value.credential == nil {
                problems.append(ParamProblem("\(path).credential", "is required with ceremonyId"))
            }
        }]
    }

    enum PasskeyCreationOptions: RPCMethod {
        static let declaration = MethodDeclaration(
            "reset/passkeyCreationOptions", "Creation options for the passkey reset/resetPasskeys will register, with a code.",
            description: """
            Checks an account-recovery verification code as reset/resetPasskeys does (a wrong one counts) without \
            consuming it, and opens a registration ceremony for that user: {ceremonyId, publicKey} for an outside \
            authenticator, whose credential then goes to reset/resetPasskeys with the same code.
            """,
            errors: codeErrors + [.notFound])
        struct Params: WireReadable {
            var who = Identified()
            var verificationCode = ""
            var applicationId: String?
            static let fields: [WireField<Self>] = identifier(\.who.email, \.who.phoneNumber)
                + [.required("verificationCode", \.verificationCode, .text), .applicationId(\.applicationId)]
            static let rules: [WireRule<Self>] = [Identified.rule.at(\.who)]
        }
        typealias Result = CreationCeremony
        static func handle(_ params: Params, _ context: CallContext) throws -> CreationCeremony {
            CreationCeremony(options: try context.core.resetPasskeyCreationOptions(params.who.identifier, code: params.verificationCode,
                                                                                    applicationId: params.applicationId))
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
