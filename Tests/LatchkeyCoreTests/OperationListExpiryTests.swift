import LatchkeyContract
import LatchkeyTestSupport
import Testing

@testable import LatchkeyCore

/// `admin/listOperations` expires what is due before it answers.
///
/// With no status, or another status, the list read before the expiry is answered with the expired
/// ones in it; `pending` is answered from every pending operation read; `expired` is read again.
/// Each answer is the one a list read after the expiry would give.
@Suite struct OperationListExpiryTests {
    private let template = paymentTemplate

    /// Four operations, oldest first: two that expire after 60 s, one after an hour, one canceled.
    private func operations() throws -> (TestSystem, [String]) {
        let system = try makeSystem()
        _ = try activatedWithPin(system)
        _ = try system.core.configureOperationTemplate(template)
        var ids: [String] = []
        for ttl: Int64? in [60, 3600, 60, nil] {
            ids.append(
                try system.core.createOperation(NewOperation(userId: "alice", template: "payment", parameters: [("amount", "1.00")], ttlSeconds: ttl))
                    .operationId)
        }
        _ = try system.core.cancelOperation(operationId: ids[3])
        // The clock moves without the due work that `clock/advance` runs: the list is the first to see the expiry.
        try system.core.clock.advance(by: 61)
        return (system, ids)
    }

    private func listed(_ system: TestSystem, _ status: OperationStatus?, limit: Int = 100) throws -> [String] {
        try system.core.operations(userId: "alice", status: status, limit: limit).map { "\($0.operationId) \($0.status.rawValue)" }
    }

    @Test func withNoStatusTheExpiredAreListedAsExpired() throws {
        let (system, ids) = try operations()
        let first = try listed(system, nil)
        #expect(first == ["\(ids[3]) canceled", "\(ids[2]) expired", "\(ids[1]) pending", "\(ids[0]) expired"])
        #expect(try listed(system, nil) == first)
    }

    @Test func pendingListsOnlyThoseStillPendingUpToTheLimit() throws {
        let (system, ids) = try operations()
        #expect(try listed(system, .pending, limit: 1) == ["\(ids[1]) pending"])
        let (again, _) = try operations()
        #expect(try listed(again, .pending) == ["\(ids[1]) pending"])
    }

    @Test func expiredListsThoseJustExpiredNewestFirst() throws {
        let (system, ids) = try operations()
        #expect(try listed(system, .expired) == ["\(ids[2]) expired", "\(ids[0]) expired"])
    }

    @Test func anotherStatusIsUnchangedByTheExpiry() throws {
        let (system, ids) = try operations()
        #expect(try listed(system, .canceled) == ["\(ids[3]) canceled"])
        #expect(try listed(system, .pending) == ["\(ids[1]) pending"])
    }
}
