import LatchkeyContract
import LatchkeyStorage
import LatchkeyStore
import Synchronization
import Testing

@testable import LatchkeyCore

/// A process whose store could not tell, when it attached its delivery worker, whether a callback exists asks again on the calls
/// that follow: a callback another process configured is then delivered by this one too, and the worker is not woken for nothing.
@Suite struct CallbackWorkerWakeTests {
    @Test func aStoreThatCouldNotTellIsAskedAgainOnTheNextCall() throws {
        let store = FaultInjectingStore(base: try SQLiteStore.inMemory())
        let clock = ManualClock(start: 1_767_225_600)
        // Another process configured a callback.
        let other = try Latchkey(store: store, clock: clock, random: SeededRandomSource(seed: 1))
        _ = try other.configureCallback(NewCallback(url: "http://127.0.0.1:1/hook", events: [.registrationStateChanged]))
        // This process attaches its worker while the store is unreachable, as the executable's wiring does.
        let core = try Latchkey(store: store, clock: clock, random: SeededRandomSource(seed: 2))
        let wakes = Mutex(0)
        core.setCallbackWorker(wake: { wakes.withLock { $0 += 1 } }, drain: { $0 }, stop: { _ in })
        // What falls due is known before the store goes away, so a call then reaches the question.
        try core.runDueTransitions()
        store.arm()
        #expect(throws: InjectedStoreFault.self) { try core.hasCallbacks() }
        core.askForCallbacksAgain()
        // A call while it is still unreachable wakes nothing and keeps asking; the first that reaches it wakes the worker.
        try core.runDueTransitions()
        let stillAsking = core.callbacksUnknown.load(ordering: .relaxed)
        #expect(stillAsking)
        store.disarm()
        #expect(wakes.withLock { $0 } == 0)
        try core.runDueTransitions()
        #expect(wakes.withLock { $0 } == 1)
        let asking = core.callbacksUnknown.load(ordering: .relaxed)
        #expect(!asking, "an answer ends the asking")
    }

    @Test func aStoreWithNoCallbackWakesNothing() throws {
        let store = FaultInjectingStore(base: try SQLiteStore.inMemory())
        let core = try Latchkey(store: store, clock: ManualClock(start: 1_767_225_600), random: SeededRandomSource(seed: 1))
        let wakes = Mutex(0)
        core.setCallbackWorker(wake: { wakes.withLock { $0 += 1 } }, drain: { $0 }, stop: { _ in })
        core.askForCallbacksAgain()
        try core.runDueTransitions()
        try core.runDueTransitions()
        #expect(wakes.withLock { $0 } == 0)
    }
}
