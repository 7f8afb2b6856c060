import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

enum AdminConfigureApplication: RPCMethod {
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
            .optional(
                "addOrUpdateAllowedBy", \.changes.addOrUpdateAllowedBy, .addOrUpdateAllowedBy,
                "method proving the user → methods it may add or update"),
            .optional("tokenTtlSeconds", \.changes.tokenTtlSeconds, .within(Bounds.tokenTtlSeconds)),
            .optional("redirectUrlPrefixes", \.changes.redirectUrlPrefixes, .array(.identifier)),
            .optional("passkeyRpId", \.changes.passkeyRpId, .rpId, "a domain: the page's host or a parent of it"),
            .optional("passkeyRpName", \.changes.passkeyRpName, .string(minLength: 1, maxLength: 64)),
            .optional(
                "passkeyOrigins", \.changes.passkeyOrigins, .array(.identifier, minItems: 1),
                "exact origins (https://example.com:8443) or android:apk-key-hash:…"),
            .optional("passkeyUserVerification", \.changes.passkeyUserVerification, .userVerification),
        ]
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> ApplicationConfig {
        try context.core.configureApplication(params.applicationId, params.changes)
    }
}
