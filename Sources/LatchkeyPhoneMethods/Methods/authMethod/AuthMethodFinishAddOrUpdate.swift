import LatchkeyContract
import LatchkeyDevice
import LatchkeyServer
import LatchkeySimulator
import LatchkeyWire

enum AuthMethodFinishAddOrUpdate: RPCMethod {
    static let declaration = MethodDeclaration(
        "authMethod/finishAddOrUpdate", "Adds or updates a method (a new PIN, a biometric method) after the user proves themselves.",
        description: """
            Adds or updates an auth method (activationParameter) once the user proves themselves with another \
            (authParameter), within what the application's addOrUpdateAllowedBy allows; a wrong PIN counts as in \
            authentication/finish.
            """,
        errors: [.notFound, .notActivatedLocally] + CommonErrors.finish + [.authMethodNotAllowed, .policyViolation, .authenticationFailed]
            + CommonErrors.biometry
            + [.biometryKeyInvalidated])
    struct Params: WireParams {
        let deviceId: String
        let activationParameter: AuthParameterParam
        let authParameter: AuthParameterParam
        static let wire = (
            deviceId: WireMember.deviceId,
            activationParameter: WireMember.required("activationParameter", .authParameter, "the method to add or update"),
            authParameter: WireMember.required("authParameter", .authParameter, "proves the user")
        )
    }
    static let result = Codec<[AuthMethod]>.activatedAuthMethods
    static func handle(_ params: Params, _ context: CallContext) throws -> [AuthMethod] {
        (try context.devices.on(params.deviceId, pin: params.authParameter.domain.unmaskingPin) {
            try $0.finishAddOrUpdate(activation: params.activationParameter.domain, proof: params.authParameter.domain)
        })
    }
}
