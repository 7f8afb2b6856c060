import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum AdminConfigureServer: RPCMethod {
    static let declaration = MethodDeclaration(
        "admin/configureServer", "Changes the server-wide lifetimes; absent fields keep their value.",
        description: """
            Changes the server-wide lifetimes: the account-recovery grace period, the insecure window after it, and \
            the user session lifetime. Absent fields keep their value; the full configuration is returned.
            """,
        access: .admin)
    struct Params: WireParams {
        let gracePeriodSeconds: Int64?
        let insecureWindowSeconds: Int64?
        let sessionLifetimeSeconds: Int64?
        static let wire = (
            gracePeriodSeconds: WireMember.optional("gracePeriodSeconds", .seconds()),
            insecureWindowSeconds: WireMember.optional("insecureWindowSeconds", .seconds()),
            sessionLifetimeSeconds: WireMember.optional("sessionLifetimeSeconds", .seconds())
        )
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> ServerConfig {
        try context.core.configureServer(
            gracePeriodSeconds: params.gracePeriodSeconds, insecureWindowSeconds: params.insecureWindowSeconds,
            sessionLifetimeSeconds: params.sessionLifetimeSeconds)
    }
}
