import LatchkeyContract
import Testing

@testable import LatchkeyCore

/// The simulated channel keeps the last `capacity` messages in a ring: oldest first in a listing,
/// the oldest dropped for each one sent once full.
@Suite struct SentMessagesTests {
    static func message(_ index: Int) -> OutboundMessage {
        OutboundMessage(
            id: "msg_\(index)", channel: .email, to: index % 2 == 0 ? "even@example.com" : "Odd@Example.com", purpose: .onboardingOtp,
            text: "\(index)", sentAt: Int64(index))
    }

    @Test func aFullRingKeepsTheNewestInOrder() {
        let sent = SentMessages()
        let total = SentMessages.capacity + 7
        for index in 0..<total { sent.append(Self.message(index)) }
        let listed = sent.list(to: nil)
        #expect(listed.map(\.id) == (7..<total).map { "msg_\($0)" })
        #expect(sent.message(id: "msg_6") == nil)
        #expect(sent.message(id: "msg_7")?.text == "7")
        #expect(sent.message(id: "msg_\(total - 1)")?.text == "\(total - 1)")
        #expect(sent.list(to: "odd@example.com").map(\.id) == (7..<total).filter { $0 % 2 == 1 }.map { "msg_\($0)" })
    }

    @Test func belowCapacityNothingIsDropped() {
        let sent = SentMessages()
        for index in 0..<3 { sent.append(Self.message(index)) }
        #expect(sent.list(to: nil).map(\.id) == ["msg_0", "msg_1", "msg_2"])
        #expect(sent.list(to: "EVEN@example.com").map(\.id) == ["msg_0", "msg_2"])
    }
}
