import LatchkeyContract
import LatchkeyTestSupport
import Testing

@testable import LatchkeyCore

/// What pruning keeps.
///
/// A delivery delivered or failed more than 7 days ago goes, and an event more than 7 days old goes with its deliveries once none
/// of them is pending. A delivery retried by hand late in its life goes with its event: a retry after that answers `notFound`,
/// never `pending` for a delivery that could no longer be sent.
@Suite struct CallbackPruneTests {
    private struct EmptyData: CallbackRenderer {
        func data(of event: DomainEvent) -> [UInt8] { Array("{}".utf8) }
    }

    private let day: Int64 = 86_400

    /// `changes` changes of one registration (lock, unlock, lock, …), each fanned out to one callback: a delivery each.
    private func fannedOut(_ changes: Int = 1) throws -> (TestSystem, callbackId: String) {
        let system = try makeSystem()
        system.core.setCallbackRenderer(EmptyData())
        let registrationId = try activatedWithPin(system)
        let callbackId = try system.core.configureCallback(
            NewCallback(url: "http://127.0.0.1:1/hook", events: [.registrationStateChanged])
        ).callbackId
        for change in 0..<changes { _ = try system.core.changeRegistration(registrationId, change % 2 == 0 ? .lock : .unlock) }
        while try system.core.fanOutCallbackEvents() > 0 {}
        return (system, callbackId)
    }

    /// Claims the due delivery and records its receiver's 410 (the delivery is `failed` at once).
    private func attemptAnswered410(_ system: TestSystem) throws -> ClaimedDelivery {
        let claimed = try #require(try system.core.claimCallbackDeliveries(limit: 64, perCallback: 16, underWay: [:]).deliveries.first)
        let now = system.core.now
        try system.core.recordCallbackAttempts([
            CallbackAttempt(
                deliveryId: claimed.deliveryId, leaseUntil: claimed.leaseUntil, startedAtMilliseconds: now * 1000, statusCode: 410, error: nil)
        ])
        return claimed
    }

    @Test func aDeliveryRetriedLateGoesWithItsEvent() throws {
        let (system, callbackId) = try fannedOut()
        let first = try attemptAnswered410(system)
        // Six days on, the operator retries it; it fails again, so its last attempt is recent while its event is old.
        try system.core.advanceClock(by: 6 * day)
        _ = try system.core.retryCallbackDelivery(deliveryId: first.deliveryId)
        _ = try attemptAnswered410(system)
        try system.core.advanceClock(by: 2 * day)
        try system.core.pruneCallbacks()
        // Gone with its event: a retry answers notFound, and nothing is left to claim.
        #expect(try system.core.callbackDeliveries(callbackId: callbackId, status: nil, limit: 10).isEmpty)
        #expect { try system.core.retryCallbackDelivery(deliveryId: first.deliveryId) } throws: { ($0 as? DomainError)?.reason == .notFound }
        #expect(try system.core.claimCallbackDeliveries(limit: 64, perCallback: 16, underWay: [:]).deliveries.isEmpty)
    }

    @Test func aPendingDeliveryKeepsItsEvent() throws {
        let (system, callbackId) = try fannedOut()
        let first = try attemptAnswered410(system)
        // Retried by hand and not yet attempted when the event turns 7 days old: both stay, and the retry is sent.
        try system.core.advanceClock(by: 7 * day + 1)
        _ = try system.core.retryCallbackDelivery(deliveryId: first.deliveryId)
        try system.core.pruneCallbacks()
        #expect(try system.core.callbackDeliveries(callbackId: callbackId, status: nil, limit: 10).map(\.deliveryId) == [first.deliveryId])
        let again = try system.core.claimCallbackDeliveries(limit: 64, perCallback: 16, underWay: [:]).deliveries
        #expect(again.map(\.eventId) == [first.eventId])
    }

    @Test func aDeliveryFailedMoreThanSevenDaysAgoGoesWithItsEvent() throws {
        let (system, callbackId) = try fannedOut()
        let first = try attemptAnswered410(system)
        try system.core.advanceClock(by: 7 * day + 1)
        try system.core.pruneCallbacks()
        #expect(try system.core.callbackDeliveries(callbackId: callbackId, status: nil, limit: 10).isEmpty)
        #expect { try system.core.retryCallbackDelivery(deliveryId: first.deliveryId) } throws: { ($0 as? DomainError)?.reason == .notFound }
    }

    /// A store that makes more old events than one pass looks at is pruned in as many passes, and events a pending delivery holds
    /// back hold no later ones back.
    @Test func moreOldEventsThanAPassLooksAtArePrunedInAsManyPasses() throws {
        let (system, callbackId) = try fannedOut(602)
        // The oldest 500 are held back by their pending deliveries; the 102 after them are not (delivered long ago).
        let deliveries = try system.core.store.read { try $0.fetchAll(CallbackDeliveryRecord.self) }.sorted { $0.eventSeq < $1.eventSeq }
        #expect(deliveries.count == 602)
        #expect(deliveries.allSatisfy { $0.callbackId == callbackId })
        try system.core.store.write { tx in
            for var delivery in deliveries.suffix(102) {
                delivery.status = CallbackDeliveryStatus.delivered.rawValue
                delivery.lastAttemptAt = system.core.now
                try tx.save(delivery)
            }
        }
        try system.core.advanceClock(by: 8 * 86_400)
        // The first pass looks at the 500 held back; the second, at the 102 after them, and prunes them.
        let cursor = try #require(try system.core.pruneCallbacks())
        #expect(try system.core.pruneCallbacks(after: cursor) == nil)
        let events = try system.core.store.read { try $0.fetchAll(CallbackEventRecord.self) }
        #expect(Set(events.map(\.id)) == Set(deliveries.prefix(500).map(\.eventId)))
    }
}
