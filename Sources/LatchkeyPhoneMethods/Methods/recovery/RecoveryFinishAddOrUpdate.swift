import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyServer
import LatchkeySimulator

enum RecoveryFinishAddOrUpdate: RPCMethod {
    static let declaration = MethodDeclaration(
        "recovery/finishAddOrUpdate", "Sets or replaces the recovery code; the server keeps only a public key.",
        description: """
            Sets or replaces the user-chosen recovery code (6 to 64 characters): the device keeps the recovery data, \
            the server only a public key, never the code.
            """,
        errors: [.notFound, .notActivatedLocally, .policyViolation] + CommonErrors.finish)
    struct Params: WireReadable {
        var deviceId = ""
        var recoveryParameter = RecoveryFamily.RecoveryParameter()
        var tokenPurpose = TokenPurpose.none
        static let fields: [WireField<Self>] = [
            .deviceId(\.deviceId), .required("recoveryParameter", \.recoveryParameter, .object(RecoveryFamily.RecoveryParameter.self)),
            .tokenPurpose(\.tokenPurpose),
        ]
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> RecoveryMethodsOutcome {
        try context.devices.on(params.deviceId) {
            try $0.finishRecoveryAddOrUpdate(code: params.recoveryParameter.recoveryCode, tokenPurpose: params.tokenPurpose)
        }
    }
}
