import LatchkeyContract
import LatchkeyDevice
import LatchkeyServer
import LatchkeySimulator
import LatchkeyWire

enum ActivationFinish: RPCMethod {
    static let declaration = MethodDeclaration(
        "activation/finish", "Creates the factor keys and the registration.",
        description: """
            Completes an activation opened by activation/start or onboarding/activate: the device creates its factor \
            keys for the chosen method (device, pin with its PIN, touchId or faceId) and the server creates the \
            registration. Optionally issues a single-use token for a purpose.
            """,
        errors: [
            .notFound, .noSessionInProgress, .sessionExpired, .activationCodeInvalid, .activationCodeExpired,
            .authMethodNotAllowed, .policyViolation, .onboardingFailed,
        ] + CommonErrors.biometry)
    /// `{deviceId, authParameter, tokenPurpose*, activationName*}`.
    struct Params: WireParams {
        let finish: FinishParams
        let activationName: String?
        static let wire = (
            finish: WireMember.inline(FinishParams.self),
            activationName: WireMember.optional(
                "activationName", .text, "names the registration; default: the name given to onboarding/activate, else the device's name")
        )
        static let rules: [WireRule<Self>] = FinishParams.rules.map { $0.at(\.finish) }
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> ActivationOutcome {
        try context.devices.on(params.finish.deviceId) {
            try $0.finishActivation(
                params.finish.authParameter.domain, tokenPurpose: params.finish.purpose,
                activationName: params.activationName)
        }
    }
}
