import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

/// What the operation methods share.
enum OperationFamily {
    /// An approval's answers besides the challenge's: the operation, the registration's state, the method, the signatures and the counts.
    static let approvalErrors: [ErrorReason] =
        [.notFound, .operationNotPending, .authMethodNotAllowed, .operationDataMismatch, .authenticationFailed, .operationFailed]
        + CommonErrors.registrationState

    /// `{operationId}`.
    struct Identified: WireWritableParams {
        let operationId: String
        static let wire = WireMember.operationId
    }
}

extension WireMember where Value == String {
    static let operationId = WireMember.required("operationId", .identifier)
}

extension WireMember where Value == OperationRejectReason {
    static let rejectReason = WireMember.required("reason", .enumeration(OperationRejectReason.self), "why the user rejects it")
}
