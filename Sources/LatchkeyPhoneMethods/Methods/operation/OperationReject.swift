import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeyServer
import LatchkeySimulator
import LatchkeyWire

enum OperationReject: RPCMethod {
    static let declaration = MethodDeclaration(
        "operation/reject", "The simulated phone rejects an operation, with a reason.",
        description: """
            The phone signs <reason>:<hash of what it shows> with its device key alone; nothing counts. A hash other than the \
            operation's (data: what the phone was shown) still rejects it, and the audit event says dataMismatch: true.
            """,
        errors: [.notFound, .notActivatedLocally, .operationNotPending] + CommonErrors.registrationState)
    struct Params: WireParams {
        let deviceId: String
        let operationId: String
        let reason: OperationRejectReason
        let data: String?
        static let wire = (
            deviceId: WireMember.deviceId, operationId: WireMember.required("operationId", .identifier),
            reason: WireMember.required("reason", .enumeration(OperationRejectReason.self)),
            data: WireMember.shownData
        )
    }
    typealias Result = Operation
    static func handle(_ params: Params, _ context: CallContext) throws -> Operation {
        let reads = SimulatedDevices.operationDecisionReads(deviceId: params.deviceId, operationId: params.operationId)
        return try context.devices.on(params.deviceId, reading: reads) {
            try $0.rejectOperation(params.operationId, reason: params.reason, shownData: params.data)
        }
    }
}
