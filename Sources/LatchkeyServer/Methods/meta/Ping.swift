import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum Ping: RPCMethod {
    static let declaration = MethodDeclaration(
        "ping", "Answers with what it was given.",
        description: """
            Echoes the optional `echo` value back unchanged. Needs no store, so it answers even while the store is \
            unreachable; use it to check that the process is alive.
            """,
        access: .local)
    struct Params: WireParams {
        let echo: JSON?
        static let wire = WireMember.optional("echo", .any, "any value")
    }
    static let result = Codec.member("echo", .any)
    static func handle(_ params: Params, _ context: CallContext) throws -> JSON { params.echo ?? .null }
}
