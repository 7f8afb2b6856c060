import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

/// The server operator's methods (closed by `--no-admin`).
enum AdminMethods {
    static let all: [any RPCMethod.Type] = [
        ConfigureApplication.self, ConfigureServer.self, CreateUser.self, CreateActivationCode.self, GetRegistration.self,
        ListRegistrations.self, RemoveRegistration.self, LockRegistration.self, UnlockRegistration.self,
        PushAuthentication.self, GetAuthentication.self, CompleteVerification.self, AuditList.self,
    ]

    enum ConfigureApplication: RPCMethod {
        static let name = "admin/configureApplication"
        static let summary = "Creates or changes an application; absent fields keep their value."
        static let errors: [ErrorReason] = [.invalidParams]
        static let access = MethodAccess.admin
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
            ]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> ApplicationConfig {
            try context.core.configureApplication(params.applicationId, params.changes)
        }
    }

    enum ConfigureServer: RPCMethod {
        static let name = "admin/configureServer"
        static let summary = "Changes the server-wide lifetimes; absent fields keep their value."
        static let access = MethodAccess.admin
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
        static let name = "admin/createUser"
        static let summary = "Creates a user (userId generated when absent)."
        static let errors: [ErrorReason] = [.alreadyExists]
        static let access = MethodAccess.admin
        struct Params: WireReadable {
            var user = NewUser()
            var passkeys: [PasskeyName]?
            var attributes: JSON?
            static let fields: [WireField<Self>] = [
                .optional("userId", \.user.userId, .identifier),
                .optional("email", \.user.email, .email),
                .optional("phoneNumber", \.user.phoneNumber, .phoneNumber, "E.164"),
                .optional("password", \.user.password, .text),
                .optional("birthDate", \.user.birthDate, .date, "YYYY-MM-DD"),
                .optional("passkeys", \.passkeys, .array(.object(PasskeyName.self))),
                .optional("attributes", \.attributes, .freeObject),
            ]
        }
        struct Result: WireObject {
            var userId: String
            static let fields: [WireField<Self>] = [.required("userId", \.userId, .text)]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> Result {
            var user = params.user
            user.passkeys = params.passkeys?.map(\.friendlyName) ?? []
            user.attributes = params.attributes.map(JSONSerializer.string)
            return Result(userId: try context.core.createUser(user))
        }
    }

    /// `{friendlyName}`.
    struct PasskeyName: WireReadable {
        var friendlyName = ""
        static let fields: [WireField<Self>] = [.required("friendlyName", \.friendlyName, .text)]
    }

    enum CreateActivationCode: RPCMethod {
        static let name = "admin/createActivationCode"
        static let summary = "Creates an activation code for a user, in the application's format."
        static let errors: [ErrorReason] = [.notFound]
        static let access = MethodAccess.admin
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

    /// `{registrationId}`.
    struct RegistrationParams: WireReadable {
        var registrationId = ""
        static let fields: [WireField<Self>] = [.registrationId(\.registrationId)]
    }

    enum GetRegistration: RPCMethod {
        static let name = "admin/getRegistration"
        static let summary = "A registration as the server holds it."
        static let errors: [ErrorReason] = [.notFound]
        static let access = MethodAccess.admin
        static func handle(_ params: RegistrationParams, _ context: CallContext) throws -> RegistrationInfo {
            try context.core.registrationInfo(params.registrationId)
        }
    }

    enum ListRegistrations: RPCMethod {
        static let name = "admin/listRegistrations"
        static let summary = "Every registration of a user, oldest first."
        static let errors: [ErrorReason] = [.notFound]
        static let access = MethodAccess.admin
        struct Params: WireReadable {
            var userId = ""
            static let fields: [WireField<Self>] = [.required("userId", \.userId, .identifier)]
        }
        struct Result: WireObject {
            var registrations: [RegistrationInfo]
            static let fields: [WireField<Self>] = [.required("registrations", \.registrations, .array(.object(RegistrationInfo.self)))]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> Result {
            Result(registrations: try context.core.registrations(userId: params.userId))
        }
    }

    /// An operator's change to one registration: remove, lock or unlock.
    protocol RegistrationChange: RPCMethod where Params == RegistrationParams, Result == RegistrationInfo {
        static var change: AdminRegistrationChange { get }
    }

    enum RemoveRegistration: RegistrationChange {
        static let name = "admin/removeRegistration"
        static let summary = "Removes a registration (a stolen phone); its tokens die."
        static let change = AdminRegistrationChange.remove
    }

    enum LockRegistration: RegistrationChange {
        static let name = "admin/lockRegistration"
        static let summary = "Locks a registration (lockedByAdmin); its tokens die."
        static let change = AdminRegistrationChange.lock
    }

    enum UnlockRegistration: RegistrationChange {
        static let name = "admin/unlockRegistration"
        static let summary = "Unlocks a registration and resets its PIN and recovery counters; never lifts removed."
        static let change = AdminRegistrationChange.unlock
    }

    enum PushAuthentication: RPCMethod {
        static let name = "admin/pushAuthentication"
        static let summary = "Pushes an authentication with a context; the next authentication/start picks it up."
        static let errors: [ErrorReason] = [.notFound]
        static let access = MethodAccess.admin
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
        static let name = "admin/getAuthentication"
        static let summary = "A pushed authentication's status."
        static let errors: [ErrorReason] = [.notFound]
        static let access = MethodAccess.admin
        struct Params: WireReadable {
            var authenticationId = ""
            static let fields: [WireField<Self>] = [.required("authenticationId", \.authenticationId, .identifier)]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> PushedAuthenticationInfo {
            try context.core.pushedAuthentication(params.authenticationId)
        }
    }

    enum CompleteVerification: RPCMethod {
        static let name = "admin/completeVerification"
        static let summary = "Ends onboarding identity verification; rejected removes the registration."
        static let errors: [ErrorReason] = [.notFound]
        static let access = MethodAccess.admin
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
        struct Result: WireObject {
            var status: OnboardingStatus
            static let fields: [WireField<Self>] = [.required("status", \.status, .enumeration(OnboardingStatus.self))]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> Result {
            Result(status: try context.core.completeVerification(params.target, approved: params.approved))
        }
    }

    enum AuditList: RPCMethod {
        static let name = "audit/list"
        static let summary = "Recorded security events, oldest first; limit keeps the newest."
        static let access = MethodAccess.admin
        struct Params: WireReadable {
            var userId: String?
            var registrationId: String?
            var limit: Int?
            static let fields: [WireField<Self>] = [
                .optional("userId", \.userId, .text), .optional("registrationId", \.registrationId, .text),
                .optional("limit", \.limit, .int(minimum: 0)),
            ]
        }
        struct Result: WireObject {
            var events: [AuditEvent]
            static let fields: [WireField<Self>] = [.required("events", \.events, .array(.object(AuditEvent.self)))]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> Result {
            Result(events: try context.core.auditEvents(userId: params.userId, registrationId: params.registrationId, limit: params.limit))
        }
    }
}

extension AdminMethods.RegistrationChange {
    static var errors: [ErrorReason] { [.notFound] }
    static var access: MethodAccess { .admin }
    static func handle(_ params: AdminMethods.RegistrationParams, _ context: CallContext) throws -> RegistrationInfo {
        try context.core.changeRegistration(params.registrationId, change)
    }
}
