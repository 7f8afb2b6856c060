import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum AdminRemoveCallback: RPCMethod {
    static let declaration = MethodDeclaration(
        "admin/removeCallback", "Removes a callback; its pending deliveries are dropped.",
        description: """
            Removes a callback. Its pending deliveries are dropped; its delivered and failed ones can no longer be listed or retried \
            (notFound, kind callback) and are pruned with the rest.
            """,
        errors: [.notFound], access: .admin)
    struct Params: WireParams {
        let callbackId: String
        static let wire = WireMember.required("callbackId", .identifier)
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> EmptyResult {
        try context.core.removeCallback(callbackId: params.callbackId)
        return EmptyResult()
    }
}
