import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum ServerAuthMethodAdd: RPCMethod {
    static let declaration = MethodDeclaration(
        "server/authMethod/add", "Adds or replaces a two-factor method's key, proved by an allowed second factor.",
        description: """
            The user's signatures (operation addAuthMethod) must include a second factor whose addOrUpdateAllowedBy contains the \
            new method; the new key comes with its proof. Answers the activated methods.
            """,
        errors: ServerFamily.signedErrors + [.proofInvalid])
    struct Params: WireParams {
        let signed: ServerFamily.SignedParams
        let method: AuthMethod
        let key: KeyParam
        static let wire = (
            signed: WireMember.inline(ServerFamily.SignedParams.self), method: WireMember.required("method", .authMethod),
            key: WireMember.required("key", .object(KeyParam.self))
        )
    }
    static let result = Codec<[AuthMethod]>.activatedAuthMethods
    static func handle(_ params: Params, _ context: CallContext) throws -> [AuthMethod] {
        let signatures = params.signed.signatures.domain
        let key = params.key.domain
        return try context.core.session {
            try $0.addAuthMethod(
                registrationId: params.signed.registrationId, challengeId: params.signed.challengeId,
                signatures: signatures, method: params.method, key: key, caller: nil)
        }
    }
}
