import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

enum AuditList: RPCMethod {
    static let declaration = MethodDeclaration(
        "audit/list", "Recorded security events, oldest first; limit keeps the newest.",
        description: """
            Lists recorded security events (logins, activations, failed attempts, locks, recoveries, resets, …), \
            oldest first, optionally for one user or registration; limit keeps the newest. Events never hold secrets.
            """,
        access: .admin)
    struct Params: WireReadable {
        var userId: String?
        var registrationId: String?
        var limit: Int?
        static let fields: [WireField<Self>] = [
            .optional("userId", \.userId, .text), .optional("registrationId", \.registrationId, .text),
            .optional("limit", \.limit, .int(minimum: 0)),
        ]
    }
    static let result = Codec.member("events", .array(.object(AuditEvent.self)))
    static func handle(_ params: Params, _ context: CallContext) throws -> [AuditEvent] {
        try context.core.auditEvents(userId: params.userId, registrationId: params.registrationId, limit: params.limit)
    }
}
