import LatchkeyDevice
import LatchkeyServer
import LatchkeySimulator
import LatchkeyWire

enum ActivationStart: RPCMethod {
    static let declaration = MethodDeclaration(
        "activation/start", "Checks an activation code and binds it to the device.",
        description: """
            Redeems an activation code on a device: checks it, binds it to the device and answers the auth methods the \
            device may activate with the PIN policy. Wrong codes are limited to 5 an hour per device. Follow with \
            activation/finish.
            """,
        errors: [.notFound, .alreadyActivated, .rateLimited, .activationCodeInvalid, .activationCodeExpired])
    struct Params: WireParams {
        let deviceId: String
        let activationCode: String
        let applicationId: String?
        static let wire = (
            deviceId: WireMember.deviceId, activationCode: WireMember.required("activationCode", .text), applicationId: WireMember.applicationId
        )
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> ActivationOffer {
        try context.devices.on(params.deviceId) { try $0.startActivation(code: params.activationCode, applicationId: params.applicationId) }
    }
}
