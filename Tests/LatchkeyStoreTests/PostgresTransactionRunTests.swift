import Testing

@testable import LatchkeyCore
@testable import LatchkeyPostgres

/// The decisions of `PostgresStore.transaction` between attempts, one ending at a time.
@Suite struct PostgresTransactionRunTests {
    private typealias End = PostgresTransactionRun.End<Int>

    private func step(_ run: inout PostgresTransactionRun, _ end: End, at now: Int64 = 0) -> String {
        run.begin()
        switch run.next(after: end, now: now) {
        case .answer(let value): return "answer \(value)"
        case .fail(let error as PostgresError): return "fail \(error.code)"
        case .fail(let error as StoreUnavailable): return "unavailable: \(error.reason)"
        case .fail: return "fail"
        case .runAgain: return "run again"
        case .reconnectThenRunAgain: return "reconnect"
        case .pauseThenRunAgain: return "pause"
        case .askWhetherCommitted(let marker, let value): return "ask \(marker.number) for \(value)"
        }
    }

    private func refused(_ code: PostgresError.Code) -> End { .refused(PostgresError(code: code, context: "test")) }

    @Test func aCommitAnswersAndABodyFailureFails() {
        var run = PostgresTransactionRun(writes: true, started: 0)
        #expect(step(&run, .committed(7)) == "answer 7")
        #expect(step(&run, .bodyFailed(StoreUnavailable(retryAfterSeconds: 1, reason: "x"))) == "unavailable: x")
    }

    /// Lost before COMMIT: one fresh connection runs it again, a second loss fails; lost during
    /// COMMIT, the marker decides (none: nothing was to be written, so nothing was lost).
    @Test func aLostConnectionReconnectsOnceOrAsksTheMarker() {
        var run = PostgresTransactionRun(writes: true, started: 0)
        #expect(step(&run, .lostBeforeCommit) == "reconnect")
        #expect(step(&run, .lostBeforeCommit) == "unavailable: the connection to PostgreSQL was lost")
        #expect(step(&run, .lostDuringCommit(3, PostgresCommitMarker(writer: "w", number: 9))) == "ask 9 for 3")
        #expect(step(&run, .lostDuringCommit(4, nil)) == "answer 4")
    }

    /// Serialization failures and deadlocks pause and run again within the attempts and the budget;
    /// a failed deferred check runs again at once, asking first, once; anything else fails.
    @Test func refusalsRunAgainWithinTheirLimits() {
        var run = PostgresTransactionRun(writes: true, started: 0)
        #expect(run.defersChecks)
        #expect(step(&run, refused(.deferredCheckFailed)) == "run again")
        #expect(!run.defersChecks)
        #expect(step(&run, refused(.deferredCheckFailed)) == "fail LK001")
        #expect(step(&run, refused(.serializationFailure)) == "pause")
        #expect(step(&run, refused(.deadlockDetected)) == "pause")
        #expect(step(&run, refused(.serializationFailure), at: PostgresStore.retryBudgetMilliseconds).hasPrefix("unavailable: too many"))
        #expect(step(&run, refused(PostgresError.Code("23505"))) == "fail 23505")
        var long = PostgresTransactionRun(writes: true, started: 0)
        let steps = (1...PostgresStore.maxAttempts).map { _ in step(&long, refused(.serializationFailure)) }
        #expect(steps.dropLast().allSatisfy { $0 == "pause" } && steps.last?.hasPrefix("unavailable") == true)
    }

    /// A write runs alone after `attemptsBeforeQueueing` attempts; a read never does.
    @Test func aWriteRunsAloneAfterItsAttemptsBeforeQueueing() {
        var write = PostgresTransactionRun(writes: true, started: 0)
        var read = PostgresTransactionRun(writes: false, started: 0)
        for _ in 0..<PostgresStore.attemptsBeforeQueueing {
            write.begin()
            read.begin()
            #expect(!write.alone && !read.alone)
        }
        write.begin()
        read.begin()
        #expect(write.alone && !read.alone)
    }
}
