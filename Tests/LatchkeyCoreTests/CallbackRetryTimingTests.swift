import Testing

@testable import LatchkeyCore

/// A retry on the schedule begins no sooner than its delay after the previous attempt began, to the millisecond, whichever process
/// takes it; nothing else waits.
@Suite struct CallbackRetryTimingTests {
    /// A pending delivery whose `attempts`-th attempt began at `began` milliseconds and which is next due at `due`.
    private func delivery(attempts: Int, began: Int64?, due: Int64?) -> CallbackDeliveryRecord {
        CallbackDeliveryRecord(
            id: "dlv_a", callbackId: "cb_a", eventId: "evt_a", eventSeq: 1, type: "registration.stateChanged", status: "pending",
            attempts: attempts, lastAttemptAt: began.map { $0 / 1000 }, lastStatusCode: 503, lastError: nil, nextAttemptAt: due,
            leaseUntil: nil, createdAt: 0, lastAttemptStartedMilliseconds: began)
    }

    @Test func aRetryOnTheScheduleWaitsOutTheFractionOfTheSecondItsAttemptBeganIn() {
        #expect(delivery(attempts: 1, began: 1_000_750, due: 1_005).retryNotBeforeMilliseconds == 1_005_750)
        #expect(delivery(attempts: 2, began: 2_000_999, due: 2_300).retryNotBeforeMilliseconds == 2_300_999)
        // The last delay repeats: a retry by hand of a failed delivery that fails again is due 10 h after it began.
        #expect(delivery(attempts: 9, began: 3_000_001, due: 39_000).retryNotBeforeMilliseconds == 39_000_001)
    }

    @Test func nothingElseWaits() {
        // A retry by hand (due now), a lease taken over (due when it ran out), a first attempt, an attempt made before the column was.
        #expect(delivery(attempts: 1, began: 1_000_750, due: 1_002).retryNotBeforeMilliseconds == nil)
        #expect(delivery(attempts: 1, began: 1_000_750, due: 1_035).retryNotBeforeMilliseconds == nil)
        #expect(delivery(attempts: 0, began: nil, due: 1_000).retryNotBeforeMilliseconds == nil)
        #expect(delivery(attempts: 1, began: nil, due: 1_005).retryNotBeforeMilliseconds == nil)
    }
}
