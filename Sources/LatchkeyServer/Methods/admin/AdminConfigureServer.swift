import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

enum AdminConfigureServer: RPCMethod {
    static let declaration = MethodDeclaration(
        "admin/configureServer", "Changes the server-wide lifetimes; absent fields keep their value.",
        description: """
            Changes the server-wide lifetimes: the account-recovery grace period, the insecure window after it, and \
            the user session lifetime. Absent fields keep their value; the full configuration is returned.
            """,
        access: .admin)
    struct Params: WireReadable {
        var gracePeriodSeconds: Int64?
        var insecureWindowSeconds: Int64?
        var sessionLifetimeSeconds: Int64?
        static let fields: [WireField<Self>] = [
            .optional("gracePeriodSeconds", \.gracePeriodSeconds, .seconds()),
            .optional("insecureWindowSeconds", \.insecureWindowSeconds, .seconds()),
            .optional("sessionLifetimeSeconds", \.sessionLifetimeSeconds, .seconds()),
        ]
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> ServerConfig {
        try context.core.configureServer(
            gracePeriodSeconds: params.gracePeriodSeconds, insecureWindowSeconds: params.insecureWindowSeconds,
            sessionLifetimeSeconds: params.sessionLifetimeSeconds)
    }
}
