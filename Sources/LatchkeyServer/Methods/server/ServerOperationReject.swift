import LatchkeyContract
import LatchkeyCore
import LatchkeyWire

enum ServerOperationReject: RPCMethod {
    static let declaration = MethodDeclaration(
        "server/operation/reject", "Rejects an operation with a reason, signed by the device alone.",
        description: """
            Checks the challenge, the operation and the registration's state as an approval does, then the device signature over \
            the rejectOperation payload whose last line is <reason>:<operationHash>; counts nothing. A hash other than the \
            operation's still rejects it, and its audit event says dataMismatch: true (the user saw something else).
            """,
        errors: ServerFamily.challengeErrors + [.notFound, .operationNotPending])
    struct Params: WireParams {
        let challenge: ServerFamily.ChallengeParams
        let operationId: String
        let operationHash: String
        let reason: OperationRejectReason
        let signatures: DeviceSignature
        static let wire = (
            challenge: WireMember.inline(ServerFamily.ChallengeParams.self), operationId: WireMember.operationId,
            operationHash: WireMember.required("operationHash", .text, "the hash of what the phone showed"), reason: WireMember.rejectReason,
            signatures: WireMember.required("signatures", .object(DeviceSignature.self), "{device}: a rejection is signed by the device alone")
        )
    }
    typealias Result = Operation
    static func handle(_ params: Params, _ context: CallContext) throws -> Operation {
        try context.core.session {
            try $0.rejectOperation(
                registrationId: params.challenge.registrationId, challengeId: params.challenge.challengeId, operationId: params.operationId,
                operationHash: params.operationHash, reason: params.reason, signatures: FactorSignatures(device: params.signatures.device),
                caller: nil)
        }
    }

    /// `{device}`.
    struct DeviceSignature: WireWritableParams {
        let device: Signature
        static let unknownMemberProblem: String? = "is not accepted: a rejection is signed by the device alone"
        static let wire = WireMember.required("device", Codec.signature)
    }
}
