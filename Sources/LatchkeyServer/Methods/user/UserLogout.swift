import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

enum UserLogout: RPCMethod {
    static let declaration = MethodDeclaration(
        "user/logout", "Ends the session, or every session of the user with all.",
        description: "Ends the session, or with all every session of its user.",
        errors: [.userSessionInvalid])
    struct Params: WireReadable {
        var sessionId = ""
        var all = false
        static let fields: [WireField<Self>] = [
            .required("sessionId", \.sessionId, .identifier), .defaulted("all", \.all, .bool, default: false, "end every session of the user"),
        ]
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> EmptyResult {
        try context.core.logout(sessionId: params.sessionId, all: params.all)
        return EmptyResult()
    }
}
