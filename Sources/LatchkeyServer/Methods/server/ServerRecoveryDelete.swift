import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum ServerRecoveryDelete: RPCMethod {
    static let declaration = MethodDeclaration(
        "server/recovery/delete", "Deletes the recovery key, authorised by a deleteRecovery token.",
        description: """
            Uses a deleteRecovery token (from a two-factor verify) and removes the recovery key; with no recovery key \
            set it answers recoveryNotActivated and the token is not spent.
            """,
        errors: [.notFound, .recoveryNotActivated] + CommonErrors.registrationState + CommonErrors.token)
    struct Params: WireParams {
        let token: ServerFamily.TokenParams
        let tokenPurpose: TokenPurpose
        static let wire = (token: WireMember.inline(ServerFamily.TokenParams.self), tokenPurpose: WireMember.tokenPurpose)
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> RecoveryMethodsOutcome {
        try context.core.session {
            try $0.deleteRecovery(
                registrationId: params.token.registrationId, token: params.token.token,
                tokenPurpose: params.tokenPurpose, caller: nil)
        }
    }
}
