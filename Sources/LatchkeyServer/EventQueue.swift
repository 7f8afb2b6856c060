import LatchkeyCore
import Synchronization

/// Committed domain events waiting to be turned into notifications (the core's event sink may
/// be called from whichever thread commits).
final class EventQueue: Sendable {
    private let events = Mutex<[DomainEvent]>([])
    /// Whether `append` ran since the last `takeAll`: read without the lock after every call.
    private let appended = Atomic<Bool>(false)

    func append(_ event: DomainEvent) {
        events.withLock {
            $0.append(event)
            appended.store(true, ordering: .releasing)
        }
    }

    /// False when nothing was appended since the last `takeAll` (an event appended by another
    /// thread meanwhile is taken the next time).
    var mayHoldEvents: Bool { appended.load(ordering: .acquiring) }

    func peekAll() -> [DomainEvent] { events.withLock { $0 } }

    func takeAll() -> [DomainEvent] {
        events.withLock { list in
            appended.store(false, ordering: .relaxed)
            let taken = list
            list.removeAll()
            return taken
        }
    }
}
