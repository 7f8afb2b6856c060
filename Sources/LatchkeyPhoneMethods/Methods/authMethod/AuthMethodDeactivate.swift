import LatchkeyContract
import LatchkeyDevice
import LatchkeyServer
import LatchkeySimulator
import LatchkeyWire

enum AuthMethodDeactivate: RPCMethod {
    static let declaration = MethodDeclaration(
        "authMethod/deactivate", "Removes a method after a device authentication.",
        description: """
            Removes an auth method from the registration after a device authentication. The device method itself \
            cannot be removed (cannotDeactivateDevice).
            """,
        errors: [.notFound, .notActivatedLocally, .cannotDeactivateDevice, .authMethodNotAllowed] + CommonErrors.registrationState)
    struct Params: WireParams {
        let deviceId: String
        let authMethod: AuthMethod
        static let wire = (deviceId: WireMember.deviceId, authMethod: WireMember.required("authMethod", .authMethod))
    }
    static let result = Codec<[AuthMethod]>.activatedAuthMethods
    static func handle(_ params: Params, _ context: CallContext) throws -> [AuthMethod] {
        (try context.devices.on(params.deviceId) { try $0.deactivateAuthMethod(params.authMethod) })
    }
}
