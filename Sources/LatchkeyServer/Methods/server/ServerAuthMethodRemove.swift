import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum ServerAuthMethodRemove: RPCMethod {
    static let declaration = MethodDeclaration(
        "server/authMethod/remove", "Removes a two-factor method; the device's signature suffices.",
        description: """
            Signed with operation removeAuthMethod over a challenge from server/authentication/challenge; device alone \
            suffices (a second factor, if given, is checked and counts). device itself cannot be removed \
            (cannotDeactivateDevice). Answers the activated methods.
            """,
        errors: ServerFamily.signedErrors + [.cannotDeactivateDevice])
    struct Params: WireParams {
        let signed: ServerFamily.SignedParams
        let method: AuthMethod
        static let wire = (signed: WireMember.inline(ServerFamily.SignedParams.self), method: WireMember.required("method", .authMethod))
    }
    static let result = Codec<[AuthMethod]>.activatedAuthMethods
    static func handle(_ params: Params, _ context: CallContext) throws -> [AuthMethod] {
        let signatures = params.signed.signatures.domain
        return try context.core.session {
            try $0.removeAuthMethod(
                registrationId: params.signed.registrationId, challengeId: params.signed.challengeId,
                signatures: signatures, method: params.method, caller: nil)
        }
    }
}
