import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

enum ServerAuthMethodAdd: RPCMethod {
    static let declaration = MethodDeclaration(
        "server/authMethod/add", "Adds or replaces a two-factor method's key, proved by an allowed second factor.",
        description: """
            The user's signatures (operation addAuthMethod) must include a second factor whose addOrUpdateAllowedBy contains the \
            new method; the new key comes with its proof. Answers the activated methods.
            """,
        errors: ServerFamily.signedErrors + [.proofInvalid])
    struct Params: WireReadable {
        var signed = ServerFamily.SignedParams()
        var method = AuthMethod.pin
        var key = KeyParam()
        static let fields: [WireField<Self>] =
            ServerFamily.SignedParams.fields.map { $0.lifted(\.signed) } + [
                .required("method", \.method, .authMethod), .required("key", \.key, .object(KeyParam.self)),
            ]
    }
    static let result = Codec<[AuthMethod]>.activatedAuthMethods
    static func handle(_ params: Params, _ context: CallContext) throws -> [AuthMethod] {
        let signatures = try params.signed.factorSignatures()
        let key = try params.key.domain(at: "key")
        return try context.core.session {
            try $0.addAuthMethod(
                registrationId: params.signed.registrationId, challengeId: params.signed.challengeId,
                signatures: signatures, method: params.method, key: key, caller: nil)
        }
    }
}
