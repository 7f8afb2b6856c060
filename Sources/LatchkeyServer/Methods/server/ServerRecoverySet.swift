import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

enum ServerRecoverySet: RPCMethod {
    static let declaration = MethodDeclaration(
        "server/recovery/set", "Sets or replaces the recovery key, authorised by an addOrUpdateRecovery token.",
        description: """
            The key's proof signs the token as its challenge (operation setRecovery, role recovery); a failing proof spends \
            nothing. The device keeps the private recovery key masked under the user's recovery code, in its backup.
            """,
        errors: [.notFound, .proofInvalid] + CommonErrors.registrationState + CommonErrors.token)
    struct Params: WireReadable {
        var token = ServerFamily.TokenParams()
        var key = KeyParam()
        var tokenPurpose = TokenPurpose.none
        static let fields: [WireField<Self>] =
            ServerFamily.TokenParams.fields.map { $0.lifted(\.token) } + [
                .required("key", \.key, .object(KeyParam.self)), .tokenPurpose(\.tokenPurpose),
            ]
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> RecoveryMethodsOutcome {
        let key = try params.key.domain(at: "key")
        return try context.core.session {
            try $0.setRecovery(
                registrationId: params.token.registrationId, token: params.token.token, key: key,
                tokenPurpose: params.tokenPurpose, caller: nil)
        }
    }
}
