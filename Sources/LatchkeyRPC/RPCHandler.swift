import LatchkeyJSON

/// What the transport asks of the server: answer one call, and say when time-driven work is due.
public protocol RPCHandler: AnyObject {
    /// Carries out one request or notification. Notifications the call causes go to `emit`
    /// before it returns (they are written before its response).
    func handle(_ request: RPCRequest, emit: (JSON) -> Void) -> Result<JSON, RPCError>

    /// Milliseconds until time-driven work is due (nil: none), so an idle process wakes for it.
    func millisecondsUntilDue() -> Int?

    /// Carries out time-driven work that is due; its notifications go to `emit`.
    func runDue(emit: (JSON) -> Void)

    /// What wakes an idle process when another thread left it something to say (nil: nothing does now); the loop then runs `runDue`.
    var waker: LoopWaker? { get }
}

extension RPCHandler {
    public func millisecondsUntilDue() -> Int? { nil }
    public func runDue(emit: (JSON) -> Void) {}
    public var waker: LoopWaker? { nil }
}
