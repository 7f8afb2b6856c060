import LatchkeyDevice
import LatchkeyServer
import LatchkeySimulator
import LatchkeyWire

enum AuthenticationStart: RPCMethod {
    static let declaration = MethodDeclaration(
        "authentication/start", "Opens an authentication; picks up a pushed authentication if one is pending.",
        description: """
            Opens an authentication on an activated device: answers the activated methods, the suggested one, the PIN \
            attempts left and, when an operator pushed an authentication, its id and context. Follow with \
            authentication/finish within 300 s.
            """,
        errors: [.notFound, .notActivatedLocally] + CommonErrors.registrationState)
    struct Params: WireParams {
        let deviceId: String
        let clientOnly: Bool
        static let wire = (
            deviceId: WireMember.deviceId,
            clientOnly: WireMember.defaulted(
                "clientOnly", Codec.bool.checked { $0 ? "must be false: client-only authentication is not supported" : nil }, default: false,
                "must be false")
        )
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> AuthenticationChallengeInfo {
        try context.devices.on(params.deviceId) { try $0.startAuthentication() }
    }
}
