import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

enum Ping: RPCMethod {
    static let declaration = MethodDeclaration(
        "ping", "Answers with what it was given.",
        description: """
            Echoes the optional `echo` value back unchanged. Needs no store, so it answers even while the store is \
            unreachable; use it to check that the process is alive.
            """,
        access: .local)
    struct Params: WireReadable {
        var echo: JSON?
        static let fields: [WireField<Self>] = [.optional("echo", \.echo, .any, "any value")]
    }
    static let result = Codec.member("echo", .any)
    static func handle(_ params: Params, _ context: CallContext) throws -> JSON { params.echo ?? .null }
}
