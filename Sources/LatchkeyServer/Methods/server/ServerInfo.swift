import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum ServerInfo: RPCMethod {
    static let declaration = MethodDeclaration(
        "server/info", "What this process is and how it was started.",
        description: """
            Reports the server's name and version, which store it runs on (sqlite, postgresql or memory), whether the \
            clock is the system's or manual, and whether randomness is seeded (a test mode). Changes nothing.
            """,
        access: .local)
    struct Result: WireObject {
        enum ClockKind: String, CaseIterable, Sendable { case system, manual }
        var name = "latchkey"
        var version: String
        var store: StoreKind
        var clock: ClockKind
        var seeded: Bool
        static let fields: [WireField<Self>] = [
            .required("name", \.name, .text), .required("version", \.version, .text),
            .required("store", \.store, .enumeration(StoreKind.self)), .required("clock", \.clock, .enumeration(ClockKind.self)),
            .required("seeded", \.seeded, .bool),
        ]
    }
    static func handle(_ params: NoParams, _ context: CallContext) throws -> Result {
        Result(
            version: context.options.version, store: context.options.storeKind,
            clock: context.clock.isManual ? .manual : .system, seeded: context.random.isSeeded)
    }
}
