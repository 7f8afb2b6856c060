import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyServer
import LatchkeySimulator

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
        (try context.devices.on(params.deviceId, pin: params.authParameter.domain.unmaskingPin) {
            try $0.finishAddOrUpdate(activation: params.activationParameter.domain, proof: params.authParameter.domain)
        })
    }
}
