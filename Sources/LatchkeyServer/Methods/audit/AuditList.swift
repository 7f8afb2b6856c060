import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum AuditList: RPCMethod {
    static let declaration = MethodDeclaration(
        "audit/list", "Recorded security events, oldest first; limit keeps the newest.",
        description: """
            Lists recorded security events (logins, activations, failed attempts, locks, recoveries, resets, …), \
            oldest first, optionally for one user or registration; limit keeps the newest. Events never hold secrets.
            """,
        access: .admin)
    struct Params: WireParams {
        let userId: String?
        let registrationId: String?
        let limit: Int?
        static let wire = (
            userId: WireMember.optional("userId", .text), registrationId: WireMember.optional("registrationId", .text),
            limit: WireMember.optional("limit", .int(minimum: 0))
        )
    }
    static let result = Codec.member("events", .array(.object(AuditEvent.self)))
    static func handle(_ params: Params, _ context: CallContext) throws -> [AuditEvent] {
        try context.core.auditEvents(userId: params.userId, registrationId: params.registrationId, limit: params.limit)
    }
}
