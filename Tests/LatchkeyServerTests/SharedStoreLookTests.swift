import LatchkeyContract
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyStorage
import LatchkeyStore
import LatchkeyTestSupport
import Synchronization
import Testing

@testable import LatchkeyServer

/// A process on a shared store looks for other processes' work every 2 s, opening the store when idle if no call has; an idle
/// open that fails is tried again 20, 40, then every 60 s and said once, and the store opened at last (by a call) looks at once.
@Suite struct SharedStoreLookTests {
    /// A clock that is not manual (the looks run only on a real one) and moves only when told.
    final class SteppedClock: Clock {
        let milliseconds = Mutex<Int64>(1_767_225_600_000)
        var now: UnixTime { nowMilliseconds / 1000 }
        var nowMilliseconds: Int64 { milliseconds.withLock { $0 } }
        var isManual: Bool { false }
        func advance(by seconds: Int64) throws { milliseconds.withLock { $0 += seconds * 1000 } }
    }

    @Test func idleOpensBackOffAreSaidOnceAndACallThatOpensLooksAtOnce() throws {
        let clock = SteppedClock()
        let refusals = Mutex(3)
        let environment = Environment(
            clock: clock, random: SeededRandomSource(seed: 1),
            openStore: {
                if refusals.withLock({ left in
                    defer { left -= 1 }
                    return left > 0
                }) {
                    throw StoreUnavailable(retryAfterSeconds: 1, reason: "refused")
                }
                return try SQLiteStore.inMemory()
            })
        var options = testOptions()
        options.storeKind = .sqlite
        let log = CapturedLines()
        let server = LatchkeyServer(environment: environment, options: options, logger: log.logger())
        #expect(server.millisecondsUntilDue() == 0, "the first look is due at once")
        for (step, wait) in [(0, 20_000), (20, 40_000), (40, 60_000)] {
            try clock.advance(by: Int64(step))
            server.runDue { _ in }
            #expect(server.millisecondsUntilDue() == wait, "after \(refusals.withLock { 3 - $0 }) refusals")
        }
        #expect(log.lines.withLock { $0.filter { $0.message.contains("cannot open the store") }.count } == 1, "said once")
        try clock.advance(by: 1)
        // The store is back; a call opens it and looks at once, not at the backed-off time.
        _ = try server.handle(RPCRequest(id: .int(1), method: "admin/listCallbacks", params: [:])) { _ in }.get()
        #expect(server.millisecondsUntilDue() == 2_000)
    }
}
