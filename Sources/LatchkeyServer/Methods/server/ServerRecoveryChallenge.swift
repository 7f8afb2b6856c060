import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum ServerRecoveryChallenge: RPCMethod {
    static let declaration = MethodDeclaration(
        "server/recovery/challenge", "Opens a recovery of the registration onto new keys: the challenge the recovery key signs.",
        description: """
            For a new phone restored from backup: checks the registration may be recovered (recoveryNotActivated, \
            recoveryLocked as recovery/start) and answers a challenge, valid 300 s, that the recovery key and the new \
            keys sign for server/recovery/commit.
            """,
        errors: [.notFound, .recoveryNotActivated, .recoveryLocked] + CommonErrors.registrationState)
    struct Params: WireParams {
        let registrationId: String
        let installationId: String
        static let wire = (registrationId: WireMember.registrationId, installationId: WireMember.installationId)
    }
    static let result = Codec.recoveryChallenge
    static func handle(_ params: Params, _ context: CallContext) throws -> KeyRequest {
        try context.core.session { try $0.recoveryChallenge(registrationId: params.registrationId, caller: .installation(params.installationId)) }
    }
}
