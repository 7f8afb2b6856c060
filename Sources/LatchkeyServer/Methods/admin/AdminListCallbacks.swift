import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

enum AdminListCallbacks: RPCMethod {
    static let declaration = MethodDeclaration(
        "admin/listCallbacks", "The callbacks of an application (no secrets).",
        description: "Lists the callbacks configured for an application: id, URL, event types. Secrets are never listed.",
        errors: [.notFound], access: .admin)
    typealias Params = ApplicationParams
    static let result = Codec.member("callbacks", .array(.object(Callback.self)))
    static func handle(_ params: ApplicationParams, _ context: CallContext) throws -> [Callback] {
        try context.core.callbacks(applicationId: params.applicationId)
    }
}
