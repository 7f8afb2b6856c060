import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum AdminListOperations: RPCMethod {
    static let declaration = MethodDeclaration(
        "admin/listOperations", "A user's operations, newest first.",
        description: "Lists a user's operations newest first (ties by commit order), optionally of one status; limit 1–1000, default 100.",
        errors: [.notFound], access: .admin)
    struct Params: WireParams {
        let userId: String
        let status: OperationStatus?
        let limit: Int
        static let wire = (
            userId: WireMember.required("userId", .identifier), status: WireMember.optional("status", .enumeration(OperationStatus.self)),
            limit: WireMember.defaulted("limit", .int(minimum: 1, maximum: 1000), default: 100)
        )
    }
    typealias Result = ListedOperations
    static func handle(_ params: Params, _ context: CallContext) throws -> ListedOperations {
        ListedOperations(operations: try context.core.operations(userId: params.userId, status: params.status, limit: params.limit))
    }
}
