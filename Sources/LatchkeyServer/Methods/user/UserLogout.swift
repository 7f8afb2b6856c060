import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum UserLogout: RPCMethod {
    static let declaration = MethodDeclaration(
        "user/logout", "Ends the session, or every session of the user with all.",
        description: "Ends the session, or with all every session of its user.",
        errors: [.userSessionInvalid])
    struct Params: WireParams {
        let sessionId: String
        let all: Bool
        static let wire = (
            sessionId: WireMember.required("sessionId", .identifier),
            all: WireMember.defaulted("all", .bool, default: false, "end every session of the user")
        )
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> EmptyResult {
        try context.core.logout(sessionId: params.sessionId, all: params.all)
        return EmptyResult()
    }
}
