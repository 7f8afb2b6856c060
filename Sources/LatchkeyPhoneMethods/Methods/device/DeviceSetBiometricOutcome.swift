import LatchkeyDevice
import LatchkeyJSON
import LatchkeyServer
import LatchkeySimulator
import LatchkeyWire

enum DeviceSetBiometricOutcome: RPCMethod {
    static let declaration = MethodDeclaration(
        "device/setBiometricOutcome", "Sets what the biometric sensor answers from now on (sticks until changed).",
        description: """
            Sets what the simulated biometric sensor answers from now on: match, noMatch (the device refuses, \
            biometryFailed) or cancel (biometryCancelled). Sticks until changed; neither failure reaches the server.
            """,
        errors: [.notFound])
    struct Params: WireParams {
        let deviceId: String
        let outcome: BiometricOutcome
        static let wire = (deviceId: WireMember.deviceId, outcome: WireMember.required("outcome", .enumeration(BiometricOutcome.self)))
    }
    static let result = Codec.member("outcome", .enumeration(BiometricOutcome.self))
    static func handle(_ params: Params, _ context: CallContext) throws -> BiometricOutcome {
        try context.devices.setBiometricOutcome(deviceId: params.deviceId, params.outcome)
        return params.outcome
    }
}
