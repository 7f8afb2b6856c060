import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeyServer
import LatchkeySimulator

enum AuthenticationFinish: RPCMethod {
    static let declaration = MethodDeclaration(
        "authentication/finish", "Answers the challenge; the server verifies and counts.",
        description: """
            Answers the open authentication's challenge with a method (a PIN, biometry or the device key). The server \
            verifies the signature: a wrong PIN counts a failed attempt (authenticationFailed with remainingAttempts) \
            and the last allowed failure locks the registration. Optionally issues a single-use token.
            """,
        errors: [.notFound, .notActivatedLocally] + CommonErrors.finish + [.authMethodNotAllowed, .authenticationFailed] + CommonErrors.biometry
            + [.biometryKeyInvalidated])
    static func handle(_ params: FinishParams, _ context: CallContext) throws -> AuthenticationOutcome {
        let parameter = params.authParameter.domain
        return try context.devices.on(params.deviceId, pin: parameter.unmaskingPin) {
            try $0.finishAuthentication(parameter, tokenPurpose: params.purpose)
        }
    }
}
