import LatchkeyContract
import LatchkeyTestSupport
import Testing

@testable import LatchkeyCore

/// Issue 39: a claim reads only deliveries it may take.
///
/// A callback with attempts under way is read for as many as it has room for; the others, only when
/// the worker asks (`idleToo`) and no more than one callback may take. With one slow receiver the
/// worker claims a few at a time as attempts end, instead of reading a page of the backlog it
/// cannot start.
@Suite struct CallbackClaimTests {
    /// Events' data as the server writes it does not matter here.
    private struct EmptyData: CallbackRenderer {
        func data(of event: DomainEvent) -> [UInt8] { Array("{}".utf8) }
    }

    /// Two callbacks on one registration's changes, and `changes` changes fanned out: a delivery of each change to each.
    private func backlog(changes: Int) throws -> (TestSystem, a: String, b: String) {
        let system = try makeSystem()
        system.core.setCallbackRenderer(EmptyData())
        let registrationId = try activatedWithPin(system)
        let a = try system.core.configureCallback(NewCallback(url: "http://127.0.0.1:1/a", events: [.registrationStateChanged])).callbackId
        let b = try system.core.configureCallback(NewCallback(url: "http://127.0.0.1:1/b", events: [.registrationStateChanged])).callbackId
        for i in 0..<changes {
            _ = try system.core.changeRegistration(registrationId, i % 2 == 0 ? .lock : .unlock)
        }
        while try system.core.fanOutCallbackEvents() > 0 {}
        return (system, a, b)
    }

    private func counts(_ claimed: [ClaimedDelivery]) -> [String: Int] {
        claimed.reduce(into: [:]) { $0[$1.callbackId, default: 0] += 1 }
    }

    @Test func theReadsAskForNoMoreThanEachCallbackHasRoomFor() {
        let queries = Latchkey.dueQueries(limit: 10, perCallback: 16, underWay: ["cb_b": 16, "cb_a": 14, "cb_c": 0], idleToo: true, now: 100)
        #expect(queries.map(\.limit) == [2, 10, 10])
        #expect(queries[0].filters.first?.value == .text("cb_a"))
        #expect(queries[1].filters.first?.value == .text("cb_c"))
        // The callbacks with none under way: none of the three.
        #expect(queries[2].filters.filter { $0.comparison == .notEqual }.map(\.value) == [.text("cb_a"), .text("cb_b"), .text("cb_c")])
        #expect(Latchkey.dueQueries(limit: 10, perCallback: 16, underWay: ["cb_a": 14], idleToo: false, now: 100).count == 1)
        #expect(Latchkey.dueQueries(limit: 10, perCallback: 16, underWay: ["cb_a": 16], idleToo: false, now: 100).isEmpty)
        #expect(Latchkey.dueQueries(limit: 0, perCallback: 16, underWay: [:], idleToo: true, now: 100).isEmpty)
    }

    @Test func aClaimTakesUpToEachCallbacksBoundAndSaysWhenMoreMayBeDue() throws {
        let (system, a, b) = try backlog(changes: 20)
        // Nothing under way: the callbacks with none, at most one callback's bound in all.
        let first = try system.core.claimCallbackDeliveries(limit: 64, perCallback: 16, underWay: [:])
        #expect(first.deliveries.count == 16 && first.more)
        var underWay = counts(first.deliveries)
        // Those under way are filled up to their bound; without `idleToo`, nothing else is read.
        let second = try system.core.claimCallbackDeliveries(limit: 64, perCallback: 16, underWay: underWay, idleToo: false)
        for delivery in second.deliveries { underWay[delivery.callbackId, default: 0] += 1 }
        #expect(underWay == [a: 16, b: 16])
        // Reads of callbacks under way that come back full say nothing of the others.
        #expect(!second.more)
        #expect(Set(first.deliveries.map(\.deliveryId)).isDisjoint(with: second.deliveries.map(\.deliveryId)))
        // At their bounds: nothing to read, and with `idleToo` nothing of another callback is due.
        #expect(try system.core.claimCallbackDeliveries(limit: 64, perCallback: 16, underWay: underWay, idleToo: false).deliveries.isEmpty)
        let idle = try system.core.claimCallbackDeliveries(limit: 64, perCallback: 16, underWay: underWay, idleToo: true)
        #expect(idle.deliveries.isEmpty && !idle.more)
        // One of a's attempts ends: one more of a's, none of b's.
        underWay[a] = 15
        let third = try system.core.claimCallbackDeliveries(limit: 64, perCallback: 16, underWay: underWay, idleToo: false)
        #expect(counts(third.deliveries) == [a: 1])
        // Every delivery of a ended (kept at 0): a is read for again up to its bound, b not at all.
        let fourth = try system.core.claimCallbackDeliveries(limit: 64, perCallback: 16, underWay: [a: 0, b: 16], idleToo: false)
        #expect(counts(fourth.deliveries) == [a: 3])
        #expect(!fourth.more)
    }

    @Test func aDeliveryLeasedToAnAttemptUnderWayIsNotClaimedAgainWhenRetriedByHand() throws {
        let (system, a, _) = try backlog(changes: 1)
        let claimed = try system.core.claimCallbackDeliveries(limit: 64, perCallback: 16, underWay: [:]).deliveries
        let leased = try #require(claimed.first { $0.callbackId == a })
        _ = try system.core.retryCallbackDelivery(deliveryId: leased.deliveryId)
        let again = try system.core.claimCallbackDeliveries(limit: 64, perCallback: 16, underWay: counts(claimed))
        #expect(!again.deliveries.contains { $0.deliveryId == leased.deliveryId })
    }

    @Test func theDeliveriesThisProcessIsAttemptingPastTheirLeaseAreLeftOutOfTheReadNotJustUnclaimed() throws {
        let (system, a, _) = try backlog(changes: 10)
        let first = try system.core.claimCallbackDeliveries(limit: 4, perCallback: 4, underWay: [a: 0], idleToo: false).deliveries
        #expect(counts(first) == [a: 4])
        // A manual clock moved past the lease while the four attempts are under way: they are due again, and the oldest.
        try system.core.clock.advance(by: 2 * CallbackSchedule.lease)
        let attempting = [a: Set(first.map(\.deliveryId))]
        let next = try system.core.claimCallbackDeliveries(limit: 8, perCallback: 8, underWay: [a: 4], idleToo: false, attempting: attempting)
        // Room for four more of a's, and four others are due: read past the lapsed ones, not instead of them.
        #expect(counts(next.deliveries) == [a: 4])
        #expect(Set(first.map(\.deliveryId)).isDisjoint(with: next.deliveries.map(\.deliveryId)))
    }
}
