import LatchkeyContract
import LatchkeyCore
import LatchkeyWire

enum AdminGetOperation: RPCMethod {
    static let declaration = MethodDeclaration(
        "admin/getOperation", "An operation, as it stands now.",
        description: "Reads an operation: its status (an operation whose time is up is expired), counters, and how it was decided.",
        errors: [.notFound], access: .admin)
    typealias Params = OperationFamily.Identified
    typealias Result = Operation
    static func handle(_ params: Params, _ context: CallContext) throws -> Operation {
        try context.core.operation(operationId: params.operationId)
    }
}
