import LatchkeyContract
import LatchkeyStorage
import LatchkeyTestSupport
import Testing

@testable import LatchkeyCore

/// What anonymous callers leave behind is forgotten by time (`ExpiredRows`, `RateLimit.record`): a reset request for
/// every new identifier writes a code and two rate-limit events, and none of them may stay once it can answer nothing.
@Suite struct ExpiredRowsTests {
    private func rows(_ system: TestSystem) throws -> (codes: Int, rateEvents: Int) {
        try system.core.store.read { tx in
            (try tx.count(ResetCodeRecord.self, where: []), try tx.count(RateEventRecord.self, where: []))
        }
    }

    private func request(_ system: TestSystem, _ n: Int) throws {
        try system.core.requestReset(.passwordReset, .email("nobody\(n)@example.com"), redirectUrl: "app://reset", applicationId: nil)
    }

    @Test func resetCodesAndRateEventsOfUnknownIdentifiersAreForgotten() throws {
        let system = try makeSystem()
        for n in 0..<20 { try request(system, n) }
        #expect(try rows(system) == (20, 40))
        // Past the hour window, the events go with the next request; the codes stay while they answer "expired".
        try system.core.clock.advance(by: 3600)
        try request(system, 20)
        #expect(try rows(system) == (21, 2))
        try system.core.clock.advance(by: ResetCodeRecord.lifetime + ExpiredRows.keptFor - 3600 + 1)
        try request(system, 21)
        #expect(try rows(system) == (2, 2))
    }

    @Test func aCodeIsKeptADayPastItsExpiry() throws {
        let system = try makeSystem()
        _ = try system.core.createUser(NewUser(userId: "alice", email: "alice@example.com"))
        try system.core.requestReset(.passwordReset, .email("alice@example.com"), redirectUrl: "app://reset", applicationId: nil)
        try system.core.clock.advance(by: ResetCodeRecord.lifetime + ExpiredRows.keptFor - 1)
        try request(system, 0)
        #expect(try rows(system).codes == 2)
        try system.core.clock.advance(by: 2)
        try request(system, 1)
        #expect(try rows(system).codes == 2)
    }
}
