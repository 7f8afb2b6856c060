import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum ClockNow: RPCMethod {
    static let declaration = MethodDeclaration(
        "clock/now", "The server's current time.",
        description: """
            The server's current time (RFC 3339). Under --clock manual it stands still and moves only with \
            clock/advance.
            """,
        access: .local)
    static let result = ClockFamily.now
    static func handle(_ params: NoParams, _ context: CallContext) throws -> UnixTime { context.clock.now }
}
