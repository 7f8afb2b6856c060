import LatchkeyContract
import LatchkeyDevice
import LatchkeyServer
import LatchkeySimulator
import LatchkeyWire

enum RecoveryFinish: RPCMethod {
    static let declaration = MethodDeclaration(
        "recovery/finish", "Recovers the registration onto this device with the code and exactly one method besides device.",
        description: """
            Recovers the registration onto this device with the recovery code and exactly one auth method besides \
            device: the registration is re-keyed, the old device's keys stop working and the code is consumed (ask \
            tokenPurpose addOrUpdateRecovery to set a new one).
            """,
        errors: [
            .notFound, .alreadyActivated, .recoveryNotActivated, .recoveryLocked, .recoveryCodeInvalid, .authMethodNotAllowed,
            .policyViolation,
        ] + CommonErrors.finish + CommonErrors.biometry)
    struct Params: WireParams {
        let deviceId: String
        let recoveryParameter: RecoveryFamily.RecoveryParameter
        let authParameter: FinishAuthParameterParam
        let tokenPurpose: TokenPurpose
        static let wire = (
            deviceId: WireMember.deviceId,
            recoveryParameter: WireMember.required("recoveryParameter", .object(RecoveryFamily.RecoveryParameter.self)),
            authParameter: WireMember.finishAuthParameter, tokenPurpose: WireMember.tokenPurpose
        )
        static let rules: [WireRule<Self>] = [.oneTokenPurpose(\.tokenPurpose, \.authParameter)]
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> ActivationOutcome {
        try context.devices.on(params.deviceId) {
            try $0.finishRecovery(
                code: params.recoveryParameter.recoveryCode, params.authParameter.domain,
                tokenPurpose: requestedTokenPurpose(params.tokenPurpose, params.authParameter))
        }
    }
}
