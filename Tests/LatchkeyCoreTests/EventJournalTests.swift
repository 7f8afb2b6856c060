import LatchkeyContract
import LatchkeyTestSupport
import Synchronization
import Testing

@testable import LatchkeyCore

/// The event journal (issue 28): a write transaction's events are handed to it inside that
/// transaction, before commit, so a shared store's outbox holds exactly what committed.
@Suite struct EventJournalTests {
    final class Log: Sendable {
        let journaled = Mutex<[String]>([])
        let published = Mutex<[String]>([])
    }

    struct JournalRefused: Error {}

    /// Each event's name (an audit event by its type); events only callbacks hear of are left out.
    static func names(_ events: [DomainEvent]) -> [String] {
        events.compactMap { event in
            if case .audit(let audit) = event { return audit.type.rawValue }
            return event.topic?.rawValue
        }
    }

    @Test func journalGetsEachTransactionsEventsBeforeTheSinkDoes() throws {
        let system = try makeSystem().core
        let log = Log()
        system.setEventJournal { _, events in
            // Not yet published: the journal runs inside the transaction.
            #expect(log.published.withLock { $0.count } == log.journaled.withLock { $0.count })
            log.journaled.withLock { $0 += Self.names(events) }
        }
        system.setEventSink { event in log.published.withLock { $0 += Self.names([event]) } }
        _ = try system.createUser(NewUser(userId: "alice", email: "alice@example.com"))
        #expect(log.journaled.withLock { $0 } == ["userCreated"])
        #expect(log.published.withLock { $0 } == ["userCreated"])
    }

    @Test func aJournalThatFailsRollsTheTransactionBack() throws {
        let system = try makeSystem().core
        system.setEventJournal { _, _ in throw JournalRefused() }
        #expect(throws: JournalRefused.self) { _ = try system.createUser(NewUser(userId: "bob", email: "bob@example.com")) }
        system.setEventJournal { _, _ in }
        // Nothing of the refused transaction stayed: the same user can be created.
        _ = try system.createUser(NewUser(userId: "bob", email: "bob@example.com"))
    }

    @Test func aTransactionWithoutEventsIsNotJournaled() throws {
        let system = try makeSystem().core
        let log = Log()
        _ = try system.createUser(NewUser(userId: "carol", email: "carol@example.com"))
        system.setEventJournal { _, events in log.journaled.withLock { $0 += Self.names(events) } }
        #expect(throws: DomainError.self) { _ = try system.createUser(NewUser(userId: "carol", email: "carol@example.com")) }
        #expect(log.journaled.withLock { $0 }.isEmpty)
    }
}
