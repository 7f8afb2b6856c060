import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum AdminRetryCallbackDelivery: RPCMethod {
    static let declaration = MethodDeclaration(
        "admin/retryCallbackDelivery", "Gives a delivery one more attempt now.",
        description: """
            Makes a failed (or pending) delivery pending and due now; attempts keep counting, and a failed one that fails again is \
            failed again. A delivered one answers invalidParams; an unknown one, notFound (kind callbackDelivery); one whose callback \
            was removed, notFound (kind callback).
            """,
        errors: [.notFound], access: .admin)
    struct Params: WireParams {
        let deliveryId: String
        static let wire = WireMember.required("deliveryId", .identifier)
    }
    typealias Result = CallbackDelivery
    static func handle(_ params: Params, _ context: CallContext) throws -> CallbackDelivery {
        try context.core.retryCallbackDelivery(deliveryId: params.deliveryId)
    }
}
