import AsyncHTTPClient
import LatchkeyContract
import LatchkeyCore
import NIOCore
import Testing

@testable import LatchkeyCallbacks

#if canImport(Glibc)
import Glibc
#endif

@Suite struct CallbackRequestTests {
    /// The Standard Webhooks libraries' own test vector.
    @Test func signsAsTheStandardWebhooksReferenceDoes() throws {
        let key = try #require(Base64.decode("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let signature = CallbackRequest.signature(
            key: key, id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: "1614265330", body: Array(#"{"test": 2432232314}"#.utf8))
        #expect(signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    @Test func writesTheBodyAndHeadersTheContractNames() {
        let delivery = ClaimedDelivery(
            deliveryId: "dlv_a", callbackId: "cb_a", url: "http://127.0.0.1:1/hook", key: Array(repeating: 7, count: 32),
            eventId: "evt_1", type: "registration.stateChanged", seq: 42, createdAt: 1_767_225_600,
            data: Array(#"{"registrationId":"reg_1","note":"é\""}"#.utf8), leaseUntil: 0)
        let request = CallbackRequest(delivery, at: 1_767_225_605, version: "0.1.0")
        let expected =
            #"{"type":"registration.stateChanged","timestamp":"2026-01-01T00:00:00Z","seq":42,"data":{"registrationId":"reg_1","note":"é\""}}"#
        #expect(String(decoding: request.body, as: UTF8.self) == expected)
        #expect(request.headers.map(\.0) == ["content-type", "user-agent", "webhook-id", "webhook-timestamp", "webhook-signature"])
        #expect(request.headers[1].1 == "latchkey/0.1.0")
        #expect(request.headers[2].1 == "evt_1")
        #expect(request.headers[3].1 == "1767225605")
        #expect(request.headers[4].1 == CallbackRequest.signature(key: delivery.key, id: "evt_1", timestamp: "1767225605", body: request.body))
        // The same bytes on every attempt; only the time and its signature change.
        let later = CallbackRequest(delivery, at: 1_767_225_910, version: "0.1.0")
        #expect(later.body == request.body && later.headers[4].1 != request.headers[4].1)
    }

    @Test func namesEachFailureAsTheContractDoes() {
        #expect(CallbackTransport.classify(CallbackAttemptError.addressNotAllowed, secure: true) == .addressNotAllowed)
        #expect(CallbackTransport.classify(IOError(errnoCode: ECONNREFUSED, reason: "connect"), secure: true) == .connectionRefused)
        #expect(CallbackTransport.classify(IOError(errnoCode: ECONNRESET, reason: "read"), secure: false) == .connectionFailed)
        #expect(CallbackTransport.classify(IOError(errnoCode: ECONNRESET, reason: "read"), secure: true) == .tlsFailure)
        #expect(CallbackTransport.classify(HTTPClientError.deadlineExceeded, secure: false) == .timeout)
        #expect(CallbackTransport.classify(HTTPClientError.httpProxyHandshakeTimeout, secure: true) == .timeout)
        #expect(CallbackTransport.classify(ChannelError.ioOnClosedChannel, secure: true) == .tlsFailure)
        #expect(CallbackTransport.classify(ChannelError.ioOnClosedChannel, secure: false) == .connectionFailed)
        let names = CallbackAttemptError.allCases.map(\.rawValue)
        #expect(
            names == ["addressNotAllowed", "resolutionFailed", "connectionRefused", "timeout", "tlsFailure", "connectionFailed", "secretUnreadable"])
    }
}
