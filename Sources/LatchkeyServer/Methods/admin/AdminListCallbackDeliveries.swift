import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum AdminListCallbackDeliveries: RPCMethod {
    static let declaration = MethodDeclaration(
        "admin/listCallbackDeliveries", "A callback's deliveries, newest first.",
        description: """
            Lists a callback's deliveries newest first (ties by commit order), optionally of one status (pending, delivered, \
            failed): attempts, the last attempt's time, status code or error, and when the next attempt is due. Delivered and \
            failed deliveries are pruned after 7 days.
            """,
        errors: [.notFound], access: .admin)
    struct Params: WireParams {
        let callbackId: String
        let status: CallbackDeliveryStatus?
        let limit: Int
        static let wire = (
            callbackId: WireMember.required("callbackId", .identifier),
            status: WireMember.optional("status", .enumeration(CallbackDeliveryStatus.self)),
            limit: WireMember.defaulted("limit", .int(minimum: 1, maximum: 1000), default: 100)
        )
    }
    static let result = Codec.member("deliveries", .array(.object(CallbackDelivery.self)))
    static func handle(_ params: Params, _ context: CallContext) throws -> [CallbackDelivery] {
        try context.core.callbackDeliveries(callbackId: params.callbackId, status: params.status, limit: params.limit)
    }
}
