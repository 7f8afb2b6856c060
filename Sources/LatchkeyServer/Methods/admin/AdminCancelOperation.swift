import LatchkeyContract
import LatchkeyCore
import LatchkeyWire

enum AdminCancelOperation: RPCMethod {
    static let declaration = MethodDeclaration(
        "admin/cancelOperation", "Cancels a pending operation.",
        description:
            "The back end no longer wants the operation approved: it becomes canceled (one that is not pending answers operationNotPending).",
        errors: [.notFound, .operationNotPending], access: .admin)
    typealias Params = OperationFamily.Identified
    typealias Result = Operation
    static func handle(_ params: Params, _ context: CallContext) throws -> Operation {
        try context.core.cancelOperation(operationId: params.operationId)
    }
}
