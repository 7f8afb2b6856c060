import LatchkeyDevice
import LatchkeyServer
import LatchkeySimulator
import LatchkeyWire

enum RegistrationDeactivate: RPCMethod {
    static let declaration = MethodDeclaration(
        "registration/deactivate", "Deactivates the registration, on the server too unless onlyLocally.",
        description: """
            Deactivates the device's registration: the device forgets its keys and, unless onlyLocally, the server \
            removes the registration too.
            """,
        errors: [.notFound, .notActivatedLocally, .registrationRemoved])
    struct Params: WireParams {
        let deviceId: String
        let onlyLocally: Bool
        static let wire = (deviceId: WireMember.deviceId, onlyLocally: WireMember.defaulted("onlyLocally", .bool, default: false))
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> EmptyResult {
        try context.devices.deactivate(deviceId: params.deviceId, onlyLocally: params.onlyLocally)
        return EmptyResult()
    }
}
