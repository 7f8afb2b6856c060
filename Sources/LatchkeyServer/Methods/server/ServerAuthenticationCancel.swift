import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum ServerAuthenticationCancel: RPCMethod {
    static let declaration = MethodDeclaration(
        "server/authentication/cancel", "Uses a challenge up without an answer; a push it picked up becomes rejected.",
        description: """
            As session/cancel for a device outside the process: the challenge can no longer be verified, and a pushed \
            authentication it picked up is rejected.
            """,
        errors: [.noSessionInProgress, .sessionExpired])
    static let result = Codec.member("cancelled", .bool)
    static func handle(_ params: ServerFamily.ChallengeParams, _ context: CallContext) throws -> Bool {
        try context.core.session {
            try $0.cancelChallenge(registrationId: params.registrationId, challengeId: params.challengeId, caller: nil)
        }
    }
}
