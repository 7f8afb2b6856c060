import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum AdminGetAuthentication: RPCMethod {
    static let declaration = MethodDeclaration(
        "admin/getAuthentication", "A pushed authentication's status.",
        description: """
            Reads a pushed authentication's status: pending, approved, rejected or expired, with when it was decided.
            """,
        errors: [.notFound], access: .admin)
    struct Params: WireParams {
        let authenticationId: String
        static let wire = WireMember.required("authenticationId", .identifier)
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> PushedAuthenticationInfo {
        try context.core.pushedAuthentication(params.authenticationId)
    }
}
