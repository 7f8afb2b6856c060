import LatchkeyContract
import LatchkeyStorage
import LatchkeyTestSupport
import Testing

@testable import LatchkeyCore

/// What anonymous callers leave behind is forgotten by time (`forgetExpiredRows`): a reset request for every new
/// identifier writes a code and two rate-limit events, and none of them may stay once it can answer nothing.
@Suite struct ExpiredRowsTests {
    private func rows(_ system: TestSystem) throws -> (codes: Int, rateEvents: Int) {
        try system.core.store.read { tx in
            (try tx.count(ResetCodeRecord.self, where: []), try tx.count(RateEventRecord.self, where: []))
        }
    }

    private func request(_ system: TestSystem, _ n: Int) throws {
        try system.core.requestReset(.passwordReset, .email("nobody\(n)@example.com"), redirectUrl: "app://reset", applicationId: nil)
    }

    /// A system whose first look at due work is behind it: rows are forgotten every hour from then.
    private func started() throws -> TestSystem {
        let system = try makeSystem()
        try system.core.runDueTransitions()
        return system
    }

    @Test func resetCodesAndRateEventsOfUnknownIdentifiersAreForgotten() throws {
        let system = try started()
        for n in 0..<20 { try request(system, n) }
        #expect(try rows(system) == (20, 40))
        // An hour on, no window holds the events; the codes stay while they answer "expired".
        try system.core.advanceClock(by: ExpiredRows.forgetEvery)
        #expect(try rows(system) == (20, 0))
        try request(system, 20)
        try system.core.advanceClock(by: ResetCodeRecord.lifetime + ExpiredRows.keptFor - ExpiredRows.forgetEvery + 1)
        #expect(try rows(system) == (1, 0))
    }

    @Test func challengesOfARegistrationNeverIssuedAnotherAreForgottenADayPastTheirExpiry() throws {
        let system = try started()
        let now = system.core.now
        try system.core.store.write { tx in
            for (n, expiresAt) in [now + 300, now + 600].enumerated() {
                try tx.save(
                    ChallengeRecord(
                        id: "c\(n)", registrationId: "removed", purpose: "authenticate", challenge: "x", contextHash: "",
                        pushedAuthenticationId: nil, tokenExpiresAt: nil, expiresAt: expiresAt, createdAt: now, caller: nil, operationId: nil))
            }
        }
        try system.core.advanceClock(by: 300 + ExpiredRows.keptFor + 1)
        #expect(try system.core.store.read { try $0.fetchAll(ChallengeRecord.self).map(\.id) } == ["c1"])
    }

    @Test func sessionsAndUsedTokensAreForgottenADayPastTheirExpiryUnusedTokensStay() throws {
        let system = try started()
        let now = system.core.now
        try system.core.store.write { tx in
            for (id, expiresAt) in [("ended", now + 60), ("live", now + 30 * 86_400)] {
                try tx.save(UserSessionRecord(id: id, userId: "u", createdAt: now, expiresAt: expiresAt))
            }
            for (id, used) in [("used", true), ("unused", false)] {
                try tx.save(
                    TokenRecord(
                        id: id, registrationId: "r", purpose: "addOrUpdateRecovery", keyGeneration: 0, expiresAt: now + 300, used: used,
                        createdAt: now))
            }
        }
        try system.core.advanceClock(by: 300 + ExpiredRows.keptFor + 1)
        #expect(try system.core.store.read { try $0.fetchAll(UserSessionRecord.self).map(\.id) } == ["live"])
        #expect(try system.core.store.read { try $0.fetchAll(TokenRecord.self).map(\.id) } == ["unused"])
    }

    @Test func onboardingProcessesThatCanAnswerOnlyFailedAreForgottenADayPastTheirEnd() throws {
        let system = try started()
        let now = system.core.now
        let statuses: [(String, OnboardingStatus, Bool)] = [
            ("failed", .failed, false), ("cancelled", .activationInProgress, true), ("expiring", .activationInProgress, false),
            ("finished", .finished, false), ("verifying", .verificationInProgress, false),
        ]
        try system.core.store.write { tx in
            for (id, status, closed) in statuses {
                try tx.save(
                    OnboardingProcessRecord(
                        id: id, deviceId: "d-" + id, userId: nil, applicationId: "default", channel: nil, address: nil, otpHash: nil,
                        otpExpiresAt: nil, lastSentAt: nil, wrongOtps: 0, status: status.rawValue, canRestoreSession: true, instance: "i",
                        otpAccepted: false, registrationId: nil, closed: closed, createdAt: now))
            }
        }
        func kept() throws -> [String] { try system.core.store.read { try $0.fetchAll(OnboardingProcessRecord.self).map(\.id).sorted() } }
        // A day past the 3 h end, less a second: all kept (the one whose 3 h ran out is failed by the clock by then).
        try system.core.advanceClock(by: OnboardingProcessRecord.lifetime + ExpiredRows.keptFor - 1)
        #expect(try kept() == ["cancelled", "expiring", "failed", "finished", "verifying"])
        try system.core.advanceClock(by: ExpiredRows.forgetEvery)
        #expect(try kept() == ["finished", "verifying"])
    }

    @Test func nothingIsForgottenBeforeItsTime() throws {
        let system = try started()
        for n in 0..<3 { try request(system, n) }
        try system.core.advanceClock(by: ExpiredRows.forgetEvery - 1)
        #expect(try rows(system) == (3, 6))
        try system.core.advanceClock(by: ResetCodeRecord.lifetime + ExpiredRows.keptFor - ExpiredRows.forgetEvery)
        // Forgotten an hour after the first look: the events, not the codes (a day past their expiry is a second away).
        #expect(try rows(system) == (3, 0))
    }
}
