import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum ServerRecoverySet: RPCMethod {
    static let declaration = MethodDeclaration(
        "server/recovery/set", "Sets or replaces the recovery key, authorised by an addOrUpdateRecovery token.",
        description: """
            The key's proof signs the token as its challenge (operation setRecovery, role recovery); a failing proof spends \
            nothing. The device keeps the private recovery key masked under the user's recovery code, in its backup. A new \
            key lifts no recovery lock and restores no attempt: the 5 recovery attempts are the registration's \
            (admin/unlockRegistration resets them).
            """,
        errors: [.notFound, .proofInvalid] + CommonErrors.registrationState + CommonErrors.token)
    struct Params: WireParams {
        let token: ServerFamily.TokenParams
        let key: KeyParam
        let tokenPurpose: TokenPurpose
        static let wire = (
            token: WireMember.inline(ServerFamily.TokenParams.self), key: WireMember.required("key", .object(KeyParam.self)),
            tokenPurpose: WireMember.tokenPurpose
        )
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> RecoveryMethodsOutcome {
        let key = params.key.domain
        return try context.core.session {
            try $0.setRecovery(
                registrationId: params.token.registrationId, token: params.token.token, key: key,
                tokenPurpose: params.tokenPurpose, caller: nil)
        }
    }
}
