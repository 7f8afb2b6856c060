import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum ClockAdvance: RPCMethod {
    static let declaration = MethodDeclaration(
        "clock/advance", "Moves a manual clock forward; due state changes happen and are notified.",
        description: """
            Moves a manual clock forward by the given seconds; every time-driven change that falls due (grace periods \
            ending, insecure windows closing) happens and is notified. Refused (forbidden) on the system clock and \
            under --no-admin.
            """,
        errors: [.forbidden], access: .adminProcess)
    struct Params: WireParams {
        let seconds: Int64
        static let wire = WireMember.required("seconds", .seconds(minimum: 0))
    }
    static let result = ClockFamily.now
    static func handle(_ params: Params, _ context: CallContext) throws -> UnixTime {
        guard context.clock.isManual else {
            throw DomainError(.forbidden, "clock/advance needs --clock manual; the system clock cannot be moved")
        }
        guard context.clock.now + params.seconds <= Timestamp.latestClock else {
            throw RPCError.invalidParams([
                ParamProblem(
                    "seconds",
                    "would move the clock past \(Timestamp.format(Timestamp.latestClock)) (lifetimes from a later time would end after "
                        + "9999-12-31T23:59:59Z)")
            ])
        }
        try context.core.advanceClock(by: params.seconds)
        return context.clock.now
    }
}
