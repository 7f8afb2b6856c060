import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeyServer
import LatchkeySimulator
import LatchkeyWire

enum OperationApprove: RPCMethod {
    static let declaration = MethodDeclaration(
        "operation/approve", "The simulated phone approves an operation with a PIN or biometry.",
        description: """
            The phone shows the operation's title and message and data (the operation's, unless data says what the phone was \
            shown: a tampered display), hashes what it shows and signs the hash with its device key and the second factor. The \
            server checks, in order, the operation, the registration's state, the method (one the operation allows; device \
            alone is not enough), the device signature, the hash (operationDataMismatch, counted on the operation only), then \
            the second factor (a wrong PIN counts on the registration and the operation). The failure that reaches \
            maxFailureCount fails the operation (operationFailed).
            """,
        errors: [
            .notFound, .notActivatedLocally, .operationNotPending, .authMethodNotAllowed, .operationDataMismatch,
            .authenticationFailed, .operationFailed,
        ] + CommonErrors.registrationState + CommonErrors.biometry + [.biometryKeyInvalidated])
    struct Params: WireParams {
        let deviceId: String
        let operationId: String
        let authParameter: AuthParameterParam
        let data: String?
        static let wire = (
            deviceId: WireMember.deviceId, operationId: WireMember.required("operationId", .identifier),
            authParameter: WireMember.required("authParameter", .object(AuthParameterParam.self)),
            data: WireMember.shownData
        )
    }
    typealias Result = Operation
    static func handle(_ params: Params, _ context: CallContext) throws -> Operation {
        let parameter = params.authParameter.domain
        let reads = SimulatedDevices.operationDecisionReads(deviceId: params.deviceId, operationId: params.operationId)
        return try context.devices.on(params.deviceId, pin: parameter.unmaskingPin, reading: reads) {
            try $0.approveOperation(params.operationId, parameter, shownData: params.data)
        }
    }
}
