import LatchkeyContract
import LatchkeyCore

/// Everything a handler can use besides its params.
public struct CallContext {
    let server: LatchkeyServer
    /// The method's access: whether it needs the store, whether it changes the process's own state.
    let access: MethodAccess
    /// Under `--fail-method`: the store fails from the handler on (a method that changes the process fails before its handler).
    let failing: Bool

    /// Runs what is due before the handler (see `LatchkeyServer.prepare`).
    @usableFromInline func prepare() throws { try server.prepare(self) }

    /// The system (opened on first use; `storeUnavailable` when it cannot be).
    public var core: Latchkey { get throws { try server.core() } }
    /// The one `T` of this process, made on the system on first use (see `LatchkeyServer.attachment`).
    public func attachment<T: AnyObject & Sendable>(_ make: (Latchkey) throws -> T) throws -> T { try server.attachment(make) }
    public var options: ServerOptions { server.options }
    public var clock: Clock { server.environment.clock }
    public var random: RandomSource { server.environment.random }
}
