import LatchkeyContract
import LatchkeyDevice
import LatchkeyServer
import LatchkeySimulator
import LatchkeyWire

enum RecoveryFinishDelete: RPCMethod {
    static let declaration = MethodDeclaration(
        "recovery/finishDelete", "Deletes the recovery method on both sides (the code given is ignored).",
        description: """
            Deletes the backup recovery method on the device and on the server (the code given is not checked).
            """,
        errors: [.notFound, .notActivatedLocally, .recoveryNotActivated, .tokenExpired] + CommonErrors.finish)
    struct Params: WireParams {
        let deviceId: String
        let recoveryParameter: RecoveryFamily.DeleteParameter
        let tokenPurpose: TokenPurpose
        static let wire = (
            deviceId: WireMember.deviceId, recoveryParameter: WireMember.required("recoveryParameter", .object(RecoveryFamily.DeleteParameter.self)),
            tokenPurpose: WireMember.tokenPurpose
        )
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> RecoveryMethodsOutcome {
        try context.devices.on(params.deviceId) { try $0.finishRecoveryDelete(tokenPurpose: params.tokenPurpose) }
    }
}
