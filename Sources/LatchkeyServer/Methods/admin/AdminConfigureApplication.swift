import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

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
    struct Params: WireParams {
        let applicationId: String
        let activationCodeLength: Int?
        let activationCodeType: ActivationCodeType?
        let activationCodeTtlSeconds: Int64?
        let pinCodeType: PinCodeType?
        let pinCodeLengthMin: Int?
        let pinCodeLengthMax: Int?
        let maxFailedAttempts: Int?
        let authMethods: [AuthMethod]?
        let addOrUpdateAllowedBy: [AuthMethod: [AuthMethod]]?
        let tokenTtlSeconds: Int64?
        let redirectUrlPrefixes: [String]?
        let passkeyRpId: String?
        let passkeyRpName: String?
        let passkeyOrigins: [String]?
        let passkeyUserVerification: UserVerificationPolicy?
        typealias Bounds = ApplicationConfig.Bounds
        static let wire = (
            applicationId: WireMember.required("applicationId", .newIdentifier),
            activationCodeLength: WireMember.optional("activationCodeLength", Codec<Int>.within(Bounds.activationCodeLength)),
            activationCodeType: WireMember.optional("activationCodeType", .enumeration(ActivationCodeType.self)),
            activationCodeTtlSeconds: WireMember.optional("activationCodeTtlSeconds", .seconds()),
            pinCodeType: WireMember.optional("pinCodeType", .enumeration(PinCodeType.self)),
            pinCodeLengthMin: WireMember.optional("pinCodeLengthMin", Codec<Int>.within(Bounds.pinCodeLength)),
            pinCodeLengthMax: WireMember.optional("pinCodeLengthMax", Codec<Int>.within(Bounds.pinCodeLength)),
            maxFailedAttempts: WireMember.optional("maxFailedAttempts", Codec<Int>.within(Bounds.maxFailedAttempts)),
            authMethods: WireMember.optional("authMethods", .authMethods, "enabled methods (device always is)"),
            addOrUpdateAllowedBy: WireMember.optional(
                "addOrUpdateAllowedBy", .addOrUpdateAllowedBy, "method proving the user → methods it may add or update"),
            tokenTtlSeconds: WireMember.optional("tokenTtlSeconds", Codec<Int64>.within(Bounds.tokenTtlSeconds)),
            redirectUrlPrefixes: WireMember.optional("redirectUrlPrefixes", .array(.identifier)),
            passkeyRpId: WireMember.optional("passkeyRpId", .rpId, "a domain: the page's host or a parent of it"),
            passkeyRpName: WireMember.optional("passkeyRpName", .string(minLength: 1, maxLength: 64)),
            passkeyOrigins: WireMember.optional(
                "passkeyOrigins", .array(.identifier, minItems: 1), "exact origins (https://example.com:8443) or android:apk-key-hash:…"),
            passkeyUserVerification: WireMember.optional("passkeyUserVerification", .userVerification)
        )

        /// The members given, as the domain takes them.
        var changes: ApplicationChanges {
            var changes = ApplicationChanges()
            changes.activationCodeLength = activationCodeLength
            changes.activationCodeType = activationCodeType
            changes.activationCodeTtlSeconds = activationCodeTtlSeconds
            changes.pinCodeType = pinCodeType
            changes.pinCodeLengthMin = pinCodeLengthMin
            changes.pinCodeLengthMax = pinCodeLengthMax
            changes.maxFailedAttempts = maxFailedAttempts
            changes.authMethods = authMethods
            changes.addOrUpdateAllowedBy = addOrUpdateAllowedBy
            changes.tokenTtlSeconds = tokenTtlSeconds
            changes.redirectUrlPrefixes = redirectUrlPrefixes
            changes.passkeyRpId = passkeyRpId
            changes.passkeyRpName = passkeyRpName
            changes.passkeyOrigins = passkeyOrigins
            changes.passkeyUserVerification = passkeyUserVerification
            return changes
        }
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> ApplicationConfig {
        try context.core.configureApplication(params.applicationId, params.changes)
    }
}
