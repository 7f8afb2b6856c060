import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeySimulator
import LatchkeyJSON
import LatchkeyRPC

/// Activation, authentication, methods, deactivation and session cancel on a simulated device.
enum ActivationMethods {
    // Concrete types here, so each entry's decoding and encoding is specialised (no generic
    // metadata lookups per call).
    static let all: [MethodEntry] = [
        .init(ConfigLoad.self), .init(PinValidate.self), .init(ActivationStart.self), .init(ActivationFinish.self),
        .init(AuthenticationStart.self), .init(AuthenticationFinish.self), .init(AuthMethodStartAddOrUpdate.self),
        .init(AuthMethodFinishAddOrUpdate.self), .init(AuthMethodDeactivate.self), .init(RegistrationDeactivate.self),
        .init(SessionCancel.self),
    ]

    static let stateErrors: [ErrorReason] = [.registrationRemoved, .lockedByAdmin, .registrationLocked, .verificationPending]
    static let finishErrors: [ErrorReason] = [.noSessionInProgress, .sessionExpired] + stateErrors
    static let biometryErrors: [ErrorReason] = [.biometryUnavailable, .biometryFailed, .biometryCancelled]

    enum ConfigLoad: RPCMethod {
        static let declaration = MethodDeclaration("config/load", "The application's activation code format.",
            description: """
            Reads an application's activation code format (length and numeric or alphanumeric), so an app can shape \
            its code entry before activation/start.
            """,
            errors: [.notFound])
        struct Result: WireObject {
            var activationCodeLength: Int
            var activationCodeType: ActivationCodeType
            static let fields: [WireField<Self>] = [
                .required("activationCodeLength", \.activationCodeLength, .int()),
                .required("activationCodeType", \.activationCodeType, .enumeration(ActivationCodeType.self)),
            ]
        }
        static func handle(_ params: ApplicationParams, _ context: CallContext) throws -> Result {
            let app = try context.core.applicationConfig(params.applicationId)
            return Result(activationCodeLength: app.activationCodeLength, activationCodeType: app.activationCodeType)
        }
    }

    enum PinValidate: RPCMethod {
        static let declaration = MethodDeclaration("pin/validate", "Checks a PIN against the application's policy.",
            description: """
            Checks a candidate PIN against the application's PIN policy (numeric or alphanumeric, minimum and maximum \
            length) and lists every violation. Stores nothing; the same policy applies in activation/finish and \
            authMethod/finishAddOrUpdate.
            """,
            errors: [.notFound])
        struct Params: WireReadable {
            var pin = ""
            var applicationId: String?
            static let fields: [WireField<Self>] = [.required("pin", \.pin, .text), .applicationId(\.applicationId)]
        }
        struct Result: WireObject {
            var violations: [PinViolation]
            var valid: Bool { violations.isEmpty }
            static let fields: [WireField<Self>] = [
                .computed("valid", \.valid, .bool), .required("violations", \.violations, .array(.enumeration(PinViolation.self))),
            ]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> Result {
            Result(violations: try context.core.validatePin(params.pin, applicationId: params.applicationId))
        }
    }

    enum ActivationStart: RPCMethod {
        static let declaration = MethodDeclaration(
            "activation/start", "Checks an activation code and binds it to the device.",
            description: """
            Redeems an activation code on a device: checks it, binds it to the device and answers the auth methods the \
            device may activate with the PIN policy. Wrong codes are limited to 5 an hour per device. Follow with \
            activation/finish.
            """,
            errors: [.notFound, .alreadyActivated, .rateLimited, .activationCodeInvalid, .activationCodeExpired])
        struct Params: WireReadable {
            var deviceId = ""
            var activationCode = ""
            var applicationId: String?
            static let fields: [WireField<Self>] = [
                .deviceId(\.deviceId), .required("activationCode", \.activationCode, .text), .applicationId(\.applicationId),
            ]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> ActivationOffer {
            try context.devices.on(params.deviceId) { try $0.startActivation(code: params.activationCode, applicationId: params.applicationId) }
        }
    }

    /// `{deviceId, authParameter, tokenPurpose*}`.
    struct FinishParams: WireReadable {
        var deviceId = ""
        var authParameter = FinishAuthParameterParam()
        var tokenPurpose = TokenPurpose.none
        static let fields: [WireField<Self>] = [
            .deviceId(\.deviceId), .finishAuthParameter(\.authParameter), .tokenPurpose(\.tokenPurpose),
        ]
        static let rules: [WireRule<Self>] = [.oneTokenPurpose(\.tokenPurpose, \.authParameter)]
        var purpose: TokenPurpose { requestedTokenPurpose(tokenPurpose, authParameter) }
    }

    /// `{deviceId, authParameter, tokenPurpose*, activationName*}`.
    struct ActivationFinishParams: WireReadable {
        var finish = FinishParams()
        var activationName: String?
        static let fields: [WireField<Self>] = FinishParams.fields.map { $0.lifted(\.finish) } + [
            .optional("activationName", \.activationName, .text,
                      "names the registration; default: the name given to onboarding/activate, else the device's name"),
        ]
        static let rules: [WireRule<Self>] = FinishParams.rules.map { $0.at(\.finish) }
    }

    enum ActivationFinish: RPCMethod {
        static let declaration = MethodDeclaration(
            "activation/finish", "Creates the factor keys and the registration.",
            description: """
            Completes an activation opened by activation/start or onboarding/activate: the device creates its factor \
            keys for the chosen method (device, pin with its PIN, touchId or faceId) and the server creates the \
            registration. Optionally issues a single-use token for a purpose.
            """,
            errors: [.notFound, .noSessionInProgress, .sessionExpired, .activationCodeInvalid, .activationCodeExpired,
                     .authMethodNotAllowed, .policyViolation, .onboardingFailed] + biometryErrors)
        static func handle(_ params: ActivationFinishParams, _ context: CallContext) throws -> ActivationOutcome {
            try context.devices.on(params.finish.deviceId) {
                try $0.finishActivation(params.finish.authParameter.domain, tokenPurpose: params.finish.purpose,
                                        activationName: params.activationName)
            }
        }
    }

    enum AuthenticationStart: RPCMethod {
        static let declaration = MethodDeclaration(
            "authentication/start", "Opens an authentication; picks up a pushed authentication if one is pending.",
            description: """
            Opens an authentication on an activated device: answers the activated methods, the suggested one, the PIN \
            attempts left and, when an operator pushed an authentication, its id and context. Follow with \
            authentication/finish within 300 s.
            """,
            errors: [.notFound, .notActivatedLocally] + stateErrors)
        struct Params: WireReadable {
            var deviceId = ""
            var clientOnly = false
            static let fields: [WireField<Self>] = [
                .deviceId(\.deviceId),
                .defaulted("clientOnly", \.clientOnly, Codec.bool.checked {
                    $0 ? "must be false: client-only authentication is not supported" : nil
                }, default: false, "must be false"),
            ]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> AuthenticationChallengeInfo {
            try context.devices.on(params.deviceId) { try $0.startAuthentication() }
        }
    }

    enum AuthenticationFinish: RPCMethod {
        static let declaration = MethodDeclaration(
            "authentication/finish", "Answers the challenge; the server verifies and counts.",
            description: """
            Answers the open authentication's challenge with a method (a PIN, biometry or the device key). The server \
            verifies the signature: a wrong PIN counts a failed attempt (authenticationFailed with remainingAttempts) \
            and the last allowed failure locks the registration. Optionally issues a single-use token.
            """,
            errors: [.notFound, .notActivatedLocally] + finishErrors + [.authMethodNotAllowed, .authenticationFailed] + biometryErrors
                + [.biometryKeyInvalidated])
        static func handle(_ params: FinishParams, _ context: CallContext) throws -> AuthenticationOutcome {
            try context.devices.on(params.deviceId) { try $0.finishAuthentication(params.authParameter.domain, tokenPurpose: params.purpose) }
        }
    }

    enum AuthMethodStartAddOrUpdate: DeviceCall {
        static let declaration = MethodDeclaration(
            "authMethod/startAddOrUpdate", "Opens an add-or-update of an auth method.",
            description: """
            Opens adding or updating an auth method (a new PIN, a biometric method): answers what authentication/start \
            answers plus the methods the user may activate. Follow with authMethod/finishAddOrUpdate.
            """,
            errors: [.notFound, .notActivatedLocally] + stateErrors)
        typealias Result = AddOrUpdateOffer
        static func call(_ device: Device) throws -> AddOrUpdateOffer { try device.startAddOrUpdate() }
    }

    enum AuthMethodFinishAddOrUpdate: RPCMethod {
        static let declaration = MethodDeclaration(
            "authMethod/finishAddOrUpdate", "Adds or updates a method (a new PIN, a biometric method) after the user proves themselves.",
            description: """
            Adds or updates an auth method (activationParameter) once the user proves themselves with another \
            (authParameter), within what the application's addOrUpdateAllowedBy allows; a wrong PIN counts as in \
            authentication/finish.
            """,
            errors: [.notFound, .notActivatedLocally] + finishErrors + [.authMethodNotAllowed, .policyViolation, .authenticationFailed] + biometryErrors
                + [.biometryKeyInvalidated])
        struct Params: WireReadable {
            var deviceId = ""
            var activationParameter = AuthParameterParam()
            var authParameter = AuthParameterParam()
            static let fields: [WireField<Self>] = [
                .deviceId(\.deviceId),
                .required("activationParameter", \.activationParameter, .authParameter, "the method to add or update"),
                .required("authParameter", \.authParameter, .authParameter, "proves the user"),
            ]
        }
        static let result = Codec<[AuthMethod]>.activatedAuthMethods
        static func handle(_ params: Params, _ context: CallContext) throws -> [AuthMethod] {
            (try context.devices.on(params.deviceId) {
                try $0.finishAddOrUpdate(activation: params.activationParameter.domain, proof: params.authParameter.domain)
            })
        }
    }

    enum AuthMethodDeactivate: RPCMethod {
        static let declaration = MethodDeclaration(
            "authMethod/deactivate", "Removes a method after a device authentication.",
            description: """
            Removes an auth method from the registration after a device authentication. The device method itself \
            cannot be removed (cannotDeactivateDevice).
            """,
            errors: [.notFound, .notActivatedLocally, .cannotDeactivateDevice, .authMethodNotAllowed] + stateErrors)
        struct Params: WireReadable {
            var deviceId = ""
            var authMethod = AuthMethod.device
            static let fields: [WireField<Self>] = [.deviceId(\.deviceId), .required("authMethod", \.authMethod, .authMethod)]
        }
        static let result = Codec<[AuthMethod]>.activatedAuthMethods
        static func handle(_ params: Params, _ context: CallContext) throws -> [AuthMethod] {
            (try context.devices.on(params.deviceId) { try $0.deactivateAuthMethod(params.authMethod) })
        }
    }

    enum RegistrationDeactivate: RPCMethod {
        static let declaration = MethodDeclaration(
            "registration/deactivate", "Deactivates the registration, on the server too unless onlyLocally.",
            description: """
            Deactivates the device's registration: the device forgets its keys and, unless onlyLocally, the server \
            removes the registration too.
            """,
            errors: [.notFound, .notActivatedLocally, .registrationRemoved])
        struct Params: WireReadable {
            var deviceId = ""
            var onlyLocally = false
            static let fields: [WireField<Self>] = [.deviceId(\.deviceId), .defaulted("onlyLocally", \.onlyLocally, .bool, default: false)]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> EmptyResult {
            try context.devices.deactivate(deviceId: params.deviceId, onlyLocally: params.onlyLocally)
            return EmptyResult()
        }
    }

    enum SessionCancel: DeviceCall {
        static let declaration = MethodDeclaration(
            "session/cancel", "Cancels the operation in progress; a pushed authentication in hand is rejected.",
            description: """
            Cancels the device's operation in progress (an activation, authentication or add-or-update); a pushed \
            authentication in hand becomes rejected. Answers whether there was one to cancel.
            """,
            errors: [.notFound])
        static let result = Codec.member("cancelled", .bool)
        static func call(_ device: Device) throws -> Bool { try device.cancelSession() }
    }
}
