import LatchkeyContract
import LatchkeyTestSupport
import Synchronization
import Testing

@testable import LatchkeyCore

/// Regression: a closure kept directly in a Mutex was re-wrapped on every read, so after tens of
/// thousands of transactions delivering one event recursed through every wrapper and crashed.
@Suite struct EventSinkTests {
    final class Counter: Sendable {
        let count = Mutex(0)
    }

    @Test func sinkStaysFlatOverManyPublications() throws {
        let system = try makeSystem().core
        let counter = Counter()
        system.setEventSink { _ in counter.count.withLock { $0 += 1 } }
        let empty = Effects()
        for _ in 0..<300_000 { system.publishOutside(empty) }
        let one = Effects()
        one.append(.audit(AuditEvent(at: 0, type: .userCreated)))
        system.publishOutside(one)
        #expect(counter.count.withLock { $0 } == 1)
    }
}
