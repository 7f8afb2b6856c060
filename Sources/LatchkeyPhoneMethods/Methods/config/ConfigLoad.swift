import LatchkeyCore
import LatchkeyServer
import LatchkeyWire

enum ConfigLoad: RPCMethod {
    static let declaration = MethodDeclaration(
        "config/load", "The application's activation code format.",
        description: """
            Reads an application's activation code format (length and numeric or alphanumeric), so an app can shape \
            its code entry before activation/start.
            """,
        errors: [.notFound])
    struct Result: WireObject {
        var activationCodeLength: Int
        var activationCodeType: ActivationCodeType
        static let fields: [WireField<Self>] = [
            .required("activationCodeLength", \.activationCodeLength, .int()),
            .required("activationCodeType", \.activationCodeType, .enumeration(ActivationCodeType.self)),
        ]
    }
    static func handle(_ params: ApplicationParams, _ context: CallContext) throws -> Result {
        let app = try context.core.applicationConfig(params.applicationId)
        return Result(activationCodeLength: app.activationCodeLength, activationCodeType: app.activationCodeType)
    }
}
