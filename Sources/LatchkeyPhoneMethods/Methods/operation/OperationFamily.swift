import LatchkeyCore
import LatchkeyServer
import LatchkeySimulator
import LatchkeyStorage
import LatchkeyWire

// What the simulated phone's approval and rejection of an operation share.

extension WireMember where Value == String? {
    /// What a simulated phone was shown of an operation, when not its data (a tampered display).
    static let shownData = WireMember.optional("data", .text, "what the phone was shown (default: the operation's data)")
}

extension SimulatedDevices {
    /// What a phone's approval or rejection of an operation reads at its start: the challenge's reads for the device's registrations.
    static func operationDecisionReads(deviceId: String, operationId: String) -> [StoreRead] {
        ServerSession.operationChallengeReads(operationId: operationId, registration: registrations(of: deviceId))
    }
}
