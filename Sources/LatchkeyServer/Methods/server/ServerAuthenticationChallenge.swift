import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum ServerAuthenticationChallenge: RPCMethod {
    static let declaration = MethodDeclaration(
        "server/authentication/challenge", "Issues a challenge for the registration and picks up a pending pushed authentication.",
        description: """
            Checks the registration's state as authentication/start does and issues a single-use challenge valid 300 s, with the \
            attempt counters and any pushed context (its contextHash goes into every signature over the challenge). A \
            removeRegistration challenge is issued in any state but removed, picks up nothing and serves only \
            server/registration/remove.
            """,
        errors: [.notFound] + CommonErrors.registrationState)
    struct Params: WireParams {
        let registrationId: String
        let purpose: ChallengePurpose
        static let wire = (
            registrationId: WireMember.registrationId, purpose: WireMember.defaulted("purpose", .challengePurpose, default: .authenticate)
        )
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> Challenge {
        try context.core.session { try $0.challenge(registrationId: params.registrationId, purpose: params.purpose, caller: nil) }
    }
}
