import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeySimulator
import LatchkeyJSON
import LatchkeyRPC

/// The server operator's methods (closed by `--no-admin`).
enum AdminMethods {
    // Concrete types here, so each entry's decoding and encoding is specialised (no generic
    // metadata lookups per call).
    static let all: [MethodEntry] = [
        .init(ConfigureApplication.self), .init(ConfigureServer.self), .init(CreateUser.self),
        .init(CreateActivationCode.self), .init(GetRegistration.self), .init(ListRegistrations.self),
        .init(RemoveRegistration.self), .init(LockRegistration.self), .init(UnlockRegistration.self),
        .init(PushAuthentication.self), .init(GetAuthentication.self), .init(CompleteVerification.self), .init(AuditList.self),
    ]

    enum ConfigureApplication: RPCMethod {
        static let declaration = MethodDeclaration(
            "admin/configureApplication", "Creates or changes an application; absent fields keep their value.",
            description: """
            Creates an application or changes its settings: activation code format and lifetime, PIN policy, \
            failed-attempt limit, enabled auth methods, which method may add or update which, token lifetime, \
            redirect URL prefixes and the passkey Relying Party (RP id, name, origins, user verification). A web origin \
            whose host is not the RP id or a subdomain of it answers invalidParams naming the entry. Absent fields keep \
            their value; the full configuration is returned.
            """,
            errors: [.invalidParams], access: .admin)
        struct Params: WireReadable {
            var applicationId = ""
            var changes = ApplicationChanges()
            typealias Bounds = ApplicationConfig.Bounds
            static let fields: [WireField<Self>] = [
                .required("applicationId", \.applicationId, .identifier),
                .optional("activationCodeLength", \.changes.activationCodeLength, .within(Bounds.activationCodeLength)),
                .optional("activationCodeType", \.changes.activationCodeType, .enumeration(ActivationCodeType.self)),
                .optional("activationCodeTtlSeconds", \.changes.activationCodeTtlSeconds, .seconds()),
                .optional("pinCodeType", \.changes.pinCodeType, .enumeration(PinCodeType.self)),
                .optional("pinCodeLengthMin", \.changes.pinCodeLengthMin, .within(Bounds.pinCodeLength)),
                .optional("pinCodeLengthMax", \.changes.pinCodeLengthMax, .within(Bounds.pinCodeLength)),
                .optional("maxFailedAttempts", \.changes.maxFailedAttempts, .within(Bounds.maxFailedAttempts)),
                .optional("authMethods", \.changes.authMethods, .authMethods, "enabled methods (device always is)"),
                .optional("addOrUpdateAllowedBy", \.changes.addOrUpdateAllowedBy, .addOrUpdateAllowedBy,
                          "method proving the user → methods it may add or update"),
                .optional("tokenTtlSeconds", \.changes.tokenTtlSeconds, .within(Bounds.tokenTtlSeconds)),
                .optional("redirectUrlPrefixes", \.changes.redirectUrlPrefixes, .array(.identifier)),
                .optional("passkeyRpId", \.changes.passkeyRpId, .rpId, "a domain: the page's host or a parent of it"),
                .optional("passkeyRpName", \.changes.passkeyRpName, .string(minLength: 1, maxLength: 64)),
                .optional("passkeyOrigins", \.changes.passkeyOrigins, .array(.identifier, minItems: 1),
                          "exact origins (https://example.com:8443) or android:apk-key-hash:…"),
                .optional("passkeyUserVerification", \.changes.passkeyUserVerification, .userVerification),
            ]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> ApplicationConfig {
            try context.core.configureApplication(params.applicationId, params.changes)
        }
    }

    enum ConfigureServer: RPCMethod {
        static let declaration = MethodDeclaration(
            "admin/configureServer", "Changes the server-wide lifetimes; absent fields keep their value.",
            description: """
            Changes the server-wide lifetimes: the account-recovery grace period, the insecure window after it, and \
            the user session lifetime. Absent fields keep their value; the full configuration is returned.
            """,
            access: .admin)
        struct Params: WireReadable {
            var gracePeriodSeconds: Int64?
            var insecureWindowSeconds: Int64?
            var sessionLifetimeSeconds: Int64?
            static let fields: [WireField<Self>] = [
                .optional("gracePeriodSeconds", \.gracePeriodSeconds, .seconds()),
                .optional("insecureWindowSeconds", \.insecureWindowSeconds, .seconds()),
                .optional("sessionLifetimeSeconds", \.sessionLifetimeSeconds, .seconds()),
            ]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> ServerConfig {
            try context.core.configureServer(gracePeriodSeconds: params.gracePeriodSeconds, insecureWindowSeconds: params.insecureWindowSeconds,
                                             sessionLifetimeSeconds: params.sessionLifetimeSeconds)
        }
    }

    enum CreateUser: RPCMethod {
        static let declaration = MethodDeclaration(
            "admin/createUser", "Creates a user (userId generated when absent).",
            description: """
            Creates a user with any of userId (generated when absent), loginName, email, phoneNumber, password, \
            birthDate, passkeys registered with another Relying Party (credential id and COSE public key), the user's \
            passkey user handle and free attributes. A userId, email, phone number, loginName or credential id already \
            taken answers alreadyExists. The first step of every activation flow.
            """,
            errors: [.alreadyExists], access: .admin)
        struct Params: WireReadable {
            var user = NewUser()
            var passkeys: [ImportedPasskey]?
            var attributes: JSON?
            static let fields: [WireField<Self>] = [
                .optional("userId", \.user.userId, .identifier),
                .optional("loginName", \.user.loginName, .identifier, "unique like email, compared exactly"),
                .optional("email", \.user.email, .email),
                .optional("phoneNumber", \.user.phoneNumber, .phoneNumber, "E.164"),
                .optional("password", \.user.password, .text),
                .optional("birthDate", \.user.birthDate, .date, "YYYY-MM-DD"),
                .optional("passkeys", \.passkeys, .array(.importedPasskey), "passkeys registered with another Relying Party"),
                .optional("passkeyUserHandle", \.user.passkeyUserHandle, .userHandle, "1–64 bytes, unpadded base64url (default: 32 random bytes)"),
                .optional("attributes", \.attributes, .freeObject),
            ]
        }
        static let result = Codec.member("userId", .text)
        static func handle(_ params: Params, _ context: CallContext) throws -> String {
            var user = params.user
            user.passkeys = params.passkeys ?? []
            user.attributes = params.attributes.map(JSONSerializer.string)
            return try context.core.createUser(user)
        }
    }

    enum CreateActivationCode: RPCMethod {
        static let declaration = MethodDeclaration(
            "admin/createActivationCode", "Creates an activation code for a user, in the application's format.",
            description: """
            Issues an activation code for a user in the application's format, valid for the application's \
            activationCodeTtlSeconds; a device redeems it with activation/start and activation/finish.
            """,
            errors: [.notFound], access: .admin)
        struct Params: WireReadable {
            var userId = ""
            var applicationId: String?
            static let fields: [WireField<Self>] = [.required("userId", \.userId, .identifier), .applicationId(\.applicationId)]
        }
        struct Result: WireObject {
            var activationCode: String
            var expiresAt: UnixTime
            static let fields: [WireField<Self>] = [
                .required("activationCode", \.activationCode, .text), .required("expiresAt", \.expiresAt, .time),
            ]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> Result {
            let created = try context.core.createActivationCode(userId: params.userId, applicationId: params.applicationId)
            return Result(activationCode: created.code, expiresAt: created.expiresAt)
        }
    }

    enum GetRegistration: RPCMethod {
        static let declaration = MethodDeclaration(
            "admin/getRegistration", "A registration as the server holds it.",
            description: """
            Reads a registration as the server holds it: its user, application, name, state (active, locked, \
            lockedByAdmin, verificationPending, removed), activated auth methods, failed-attempt counter and recovery \
            methods.
            """,
            errors: [.notFound], access: .admin)
        static func handle(_ params: RegistrationParams, _ context: CallContext) throws -> RegistrationInfo {
            try context.core.registrationInfo(params.registrationId)
        }
    }

    enum ListRegistrations: RPCMethod {
        static let declaration = MethodDeclaration(
            "admin/listRegistrations", "Every registration of a user, oldest first.",
            description: "Lists every registration of a user, oldest first, each as admin/getRegistration reads it.",
            errors: [.notFound], access: .admin)
        struct Params: WireReadable {
            var userId = ""
            static let fields: [WireField<Self>] = [.required("userId", \.userId, .identifier)]
        }
        static let result = Codec.member("registrations", .array(.object(RegistrationInfo.self)))
        static func handle(_ params: Params, _ context: CallContext) throws -> [RegistrationInfo] {
            try context.core.registrations(userId: params.userId)
        }
    }

    /// An operator's change to one registration: remove, lock or unlock.
    protocol RegistrationChange: RPCMethod where Params == RegistrationParams, Result == RegistrationInfo {
        static var change: AdminRegistrationChange { get }
    }

    enum RemoveRegistration: RegistrationChange {
        static let declaration = MethodDeclaration(
            "admin/removeRegistration", "Removes a registration (a stolen phone); its tokens die.",
            description: """
            Removes a registration for good, as for a stolen phone: its tokens are revoked and the device's later \
            calls answer registrationRemoved.
            """,
            errors: [.notFound], access: .admin)
        static let change = AdminRegistrationChange.remove
    }

    enum LockRegistration: RegistrationChange {
        static let declaration = MethodDeclaration(
            "admin/lockRegistration", "Locks a registration (lockedByAdmin); its tokens die.",
            description: """
            Locks a registration by the operator's decision (lockedByAdmin): its tokens are revoked and \
            authentications answer lockedByAdmin until admin/unlockRegistration.
            """,
            errors: [.notFound], access: .admin)
        static let change = AdminRegistrationChange.lock
    }

    enum UnlockRegistration: RegistrationChange {
        static let declaration = MethodDeclaration(
            "admin/unlockRegistration", "Unlocks a registration and resets its PIN and recovery counters; never lifts removed.",
            description: """
            Unlocks a locked registration and resets its failed-PIN and recovery counters. It never brings back a \
            removed registration.
            """,
            errors: [.notFound], access: .admin)
        static let change = AdminRegistrationChange.unlock
    }

    enum PushAuthentication: RPCMethod {
        static let declaration = MethodDeclaration(
            "admin/pushAuthentication", "Pushes an authentication with a context; the next authentication/start picks it up.",
            description: """
            Pushes an authentication request with a context (title, content, MIME type) to a registration; the \
            device's next authentication/start picks it up and a two-factor authentication/finish approves it \
            (session/cancel rejects it). Poll it with admin/getAuthentication.
            """,
            errors: [.notFound], access: .admin)
        struct Params: WireReadable {
            var push = NewPushedAuthentication()
            static let fields: [WireField<Self>] = [
                .registrationId(\.push.registrationId),
                .optional("contextTitle", \.push.contextTitle, .text),
                .optional("contextContent", \.push.contextContent, .text),
                .optional("contextMIME", \.push.contextMIME, .text),
                .defaulted("ttlSeconds", \.push.ttlSeconds, .seconds(), default: 300),
            ]
        }
        struct Result: WireObject {
            var authenticationId: String
            var expiresAt: UnixTime
            static let fields: [WireField<Self>] = [
                .required("authenticationId", \.authenticationId, .text), .required("expiresAt", \.expiresAt, .time),
            ]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> Result {
            let pushed = try context.core.pushAuthentication(params.push)
            return Result(authenticationId: pushed.authenticationId, expiresAt: pushed.expiresAt)
        }
    }

    enum GetAuthentication: RPCMethod {
        static let declaration = MethodDeclaration(
            "admin/getAuthentication", "A pushed authentication's status.",
            description: """
            Reads a pushed authentication's status: pending, approved, rejected or expired, with when it was decided.
            """,
            errors: [.notFound], access: .admin)
        struct Params: WireReadable {
            var authenticationId = ""
            static let fields: [WireField<Self>] = [.required("authenticationId", \.authenticationId, .identifier)]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> PushedAuthenticationInfo {
            try context.core.pushedAuthentication(params.authenticationId)
        }
    }

    enum CompleteVerification: RPCMethod {
        static let declaration = MethodDeclaration(
            "admin/completeVerification", "Ends onboarding identity verification; rejected removes the registration.",
            description: """
            Ends the identity verification of a registration made by onboarding: approved makes it active, rejected \
            removes it. Name the user or the registration.
            """,
            errors: [.notFound], access: .admin)
        struct Params: WireReadable {
            var userId: String?
            var registrationId: String?
            var approved = false
            static let fields: [WireField<Self>] = [
                .optional("userId", \.userId, .identifier), .optional("registrationId", \.registrationId, .identifier),
                .required("approved", \.approved, .bool),
            ]
            static let rules: [WireRule<Self>] = [.exactlyOne("userId", \.userId, "registrationId", \.registrationId)]
            var target: VerificationTarget { registrationId.map(VerificationTarget.registration) ?? .user(userId ?? "") }
        }
        static let result = Codec.member("status", .enumeration(OnboardingStatus.self))
        static func handle(_ params: Params, _ context: CallContext) throws -> OnboardingStatus {
            try context.core.completeVerification(params.target, approved: params.approved)
        }
    }

    enum AuditList: RPCMethod {
        static let declaration = MethodDeclaration("audit/list", "Recorded security events, oldest first; limit keeps the newest.",
            description: """
            Lists recorded security events (logins, activations, failed attempts, locks, recoveries, resets, …), \
            oldest first, optionally for one user or registration; limit keeps the newest. Events never hold secrets.
            """,
            access: .admin)
        struct Params: WireReadable {
            var userId: String?
            var registrationId: String?
            var limit: Int?
            static let fields: [WireField<Self>] = [
                .optional("userId", \.userId, .text), .optional("registrationId", \.registrationId, .text),
                .optional("limit", \.limit, .int(minimum: 0)),
            ]
        }
        static let result = Codec.member("events", .array(.object(AuditEvent.self)))
        static func handle(_ params: Params, _ context: CallContext) throws -> [AuditEvent] {
            try context.core.auditEvents(userId: params.userId, registrationId: params.registrationId, limit: params.limit)
        }
    }
}

extension AdminMethods.RegistrationChange {
    static func handle(_ params: RegistrationParams, _ context: CallContext) throws -> RegistrationInfo {
        try context.core.changeRegistration(params.registrationId, change)
    }
}
