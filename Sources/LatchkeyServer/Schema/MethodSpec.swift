import LatchkeyJSON
import LatchkeyCore
import LatchkeyRPC

/// Everything a call can use besides its params.
public struct CallContext {
    public let server: LatchkeyServer
    public var core: Latchkey { server.core }
}

/// One contract method: its name, its params and result shapes, the errors it may answer, and
/// the handler. The registry of these is the single source of the OpenRPC document.
public struct MethodSpec: Sendable {
    public typealias Handler = @Sendable (Params, CallContext) throws -> JSON

    public var name: String
    public var summary: String
    public var params: [Field]
    public var result: Schema
    /// Reasons this method may answer with, besides the generic transport ones.
    public var errors: [String]
    /// Closed by `--no-admin`.
    public var adminOnly: Bool
    public var handler: Handler

    public init(_ name: String, _ summary: String, params: [Field] = [], result: Schema, errors: [ErrorReason] = [],
                adminOnly: Bool = false, handler: @escaping Handler) {
        self.name = name
        self.summary = summary
        self.params = params
        self.result = result
        self.errors = errors.map(\.rawValue)
        self.adminOnly = adminOnly
        self.handler = handler
    }
}
