import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum AdminListCallbacks: RPCMethod {
    static let declaration = MethodDeclaration(
        "admin/listCallbacks", "The callbacks of an application (no secrets).",
        description: "Lists the callbacks configured for an application: id, URL, event types. Secrets are never listed.",
        errors: [.notFound], access: .admin)
    struct Params: WireParams {
        let applicationId: String?
        static let wire = WireMember.applicationId
    }
    static let result = Codec.member("callbacks", .array(.object(Callback.self)))
    static func handle(_ params: Params, _ context: CallContext) throws -> [Callback] {
        try context.core.callbacks(applicationId: params.applicationId)
    }
}
