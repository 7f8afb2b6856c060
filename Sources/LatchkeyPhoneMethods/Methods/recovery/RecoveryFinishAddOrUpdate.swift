import LatchkeyContract
import LatchkeyDevice
import LatchkeyServer
import LatchkeySimulator
import LatchkeyWire

enum RecoveryFinishAddOrUpdate: RPCMethod {
    static let declaration = MethodDeclaration(
        "recovery/finishAddOrUpdate", "Sets or replaces the recovery code; the server keeps only a public key.",
        description: """
            Sets or replaces the user-chosen recovery code (6 to 64 characters): the device keeps the recovery data, \
            the server only a public key, never the code. A new code lifts no recovery lock and restores no attempt: the 5 \
            recovery attempts are the registration's (admin/unlockRegistration resets them).
            """,
        errors: [.notFound, .notActivatedLocally, .policyViolation, .tokenExpired] + CommonErrors.finish)
    struct Params: WireParams {
        let deviceId: String
        let recoveryParameter: RecoveryFamily.RecoveryParameter
        let tokenPurpose: TokenPurpose
        static let wire = (
            deviceId: WireMember.deviceId,
            recoveryParameter: WireMember.required("recoveryParameter", .object(RecoveryFamily.RecoveryParameter.self)),
            tokenPurpose: WireMember.tokenPurpose
        )
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> RecoveryMethodsOutcome {
        try context.devices.on(params.deviceId) {
            try $0.finishRecoveryAddOrUpdate(code: params.recoveryParameter.recoveryCode, tokenPurpose: params.tokenPurpose)
        }
    }
}
