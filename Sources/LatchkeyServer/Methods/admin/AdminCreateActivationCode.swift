import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum AdminCreateActivationCode: RPCMethod {
    static let declaration = MethodDeclaration(
        "admin/createActivationCode", "Creates an activation code for a user, in the application's format.",
        description: """
            Issues an activation code for a user in the application's format, valid for the application's \
            activationCodeTtlSeconds; a device redeems it with activation/start and activation/finish.
            """,
        errors: [.notFound], access: .admin)
    struct Params: WireParams {
        let userId: String
        let applicationId: String?
        static let wire = (userId: WireMember.required("userId", .identifier), applicationId: WireMember.applicationId)
    }
    struct Result: WireObject {
        var activationCode: String
        var expiresAt: UnixTime
        static let fields: [WireField<Self>] = [
            .required("activationCode", \.activationCode, .text), .required("expiresAt", \.expiresAt, .time),
        ]
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> Result {
        let created = try context.core.createActivationCode(userId: params.userId, applicationId: params.applicationId)
        return Result(activationCode: created.code, expiresAt: created.expiresAt)
    }
}
