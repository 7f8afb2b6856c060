import LatchkeyCore
import LatchkeyDevice
import LatchkeyServer
import LatchkeySimulator
import LatchkeyWire

enum OnboardingCancel: RPCMethod {
    static let declaration = MethodDeclaration(
        "onboarding/cancel", "Cancels the device's onboarding process.",
        description: """
            Cancels the device's onboarding process on the server and the device. With forceCancel (the default) the \
            device forgets its process even when the server cannot cancel it.
            """,
        errors: [.notFound, .onboardingNotRunning, .onboardingFailed])
    struct Params: WireParams {
        let deviceId: String
        let forceCancel: Bool
        static let wire = (deviceId: WireMember.deviceId, forceCancel: WireMember.defaulted("forceCancel", .bool, default: true))
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> EmptyResult {
        try context.devices.on(params.deviceId) { try $0.cancelOnboarding(forceCancel: params.forceCancel) }
        return EmptyResult()
    }
}
