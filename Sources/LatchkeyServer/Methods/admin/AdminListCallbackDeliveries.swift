import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

enum AdminListCallbackDeliveries: RPCMethod {
    static let declaration = MethodDeclaration(
        "admin/listCallbackDeliveries", "A callback's deliveries, newest first.",
        description: """
            Lists a callback's deliveries newest first (ties by commit order), optionally of one status (pending, delivered, \
            failed): attempts, the last attempt's time, status code or error, and when the next attempt is due. Delivered and \
            failed deliveries are pruned after 7 days.
            """,
        errors: [.notFound], access: .admin)
    struct Params: WireReadable {
        var callbackId = ""
        var status: CallbackDeliveryStatus?
        var limit = 100
        static let fields: [WireField<Self>] = [
            .required("callbackId", \.callbackId, .identifier),
            .optional("status", \.status, .enumeration(CallbackDeliveryStatus.self)),
            .defaulted("limit", \.limit, .int(minimum: 1, maximum: 1000), default: 100),
        ]
    }
    static let result = Codec.member("deliveries", .array(.object(CallbackDelivery.self)))
    static func handle(_ params: Params, _ context: CallContext) throws -> [CallbackDelivery] {
        try context.core.callbackDeliveries(callbackId: params.callbackId, status: params.status, limit: params.limit)
    }
}
