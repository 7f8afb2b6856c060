import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum RpcDiscover: RPCMethod {
    static let declaration = MethodDeclaration(
        "rpc.discover", "The OpenRPC document describing every method.",
        description: """
            Returns the OpenRPC 1.3 document of this server: every method with its params, result and errors, the \
            notifications and the error registry. Generated from the same registry that dispatches calls.
            """,
        access: .local)
    static let result = Codec<JSON>.freeObject
    static func handle(_ params: NoParams, _ context: CallContext) throws -> JSON {
        OpenRPCDocument.build(version: context.options.version, methods: context.options.methods)
    }
}
