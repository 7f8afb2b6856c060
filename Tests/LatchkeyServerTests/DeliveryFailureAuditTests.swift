import Foundation
import LatchkeyContract
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyStorage
import LatchkeyStore
import LatchkeyTestSupport
import Testing

@testable import LatchkeyServer

/// A failed delivery command is audited `deliveryFailed` (PROTOCOL: "logged and audited"), even when
/// the store cannot take the audit row at the moment the failure is seen: it waits for the next look.
@Suite struct DeliveryFailureAuditTests {
    @Test func aFailureTheStoreCannotTakeNowIsAuditedOnceItCan() throws {
        let store = FaultInjectingStore(base: try SQLiteStore.inMemory())
        let environment = Environment(clock: ManualClock(start: 1_767_225_600), random: SeededRandomSource(seed: 1), openStore: { store })
        var options = testOptions()
        options.deliverCommand = "exit 3"
        let log = CapturedLines()
        let server = LatchkeyServer(environment: environment, options: options, logger: log.logger())
        func call(_ method: String, _ params: JSON) throws -> JSON {
            try server.handle(RPCRequest(id: .int(1), method: method, params: params)) { _ in }.get()
        }
        _ = try call("admin/createUser", ["userId": "alice", "email": "alice@example.com"])
        // The reset code goes out by the command, which fails; the store refuses every transaction meanwhile.
        _ = try call("reset/requestPasswordReset", ["email": "alice@example.com", "redirectUrl": "app://reset"])
        store.arm()
        let deadline = Date().addingTimeInterval(10)
        while !log.contains("could not audit a failed delivery"), Date() < deadline {
            server.runDue { _ in }
            usleep(10_000)
        }
        #expect(log.contains("could not audit a failed delivery"), "the failure was never seen while the store refused")
        // The store stays away past the pause: asked again a second later at the soonest, and said once.
        let away = Date().addingTimeInterval(1.5)
        while Date() < away {
            server.runDue { _ in }
            usleep(10_000)
        }
        store.disarm()
        // Asked again a second after the refusal at the soonest, by the idle poll.
        func failed() throws -> [JSON] {
            try call("audit/list", [:])["events"]?.arrayValue?.filter { $0["type"] == "deliveryFailed" } ?? []
        }
        let again = Date().addingTimeInterval(10)
        while try failed().isEmpty, Date() < again {
            server.runDue { _ in }
            usleep(20_000)
        }
        #expect(try failed().count == 1)
        #expect(log.lines.withLock { $0.filter { $0.message.contains("could not audit a failed delivery") }.count } == 1, "said once")
        #expect(try failed().first?["detail"] == "passwordReset")
    }
}
