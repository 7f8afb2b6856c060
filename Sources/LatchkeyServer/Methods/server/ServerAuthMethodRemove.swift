import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

enum ServerAuthMethodRemove: RPCMethod {
    static let declaration = MethodDeclaration(
        "server/authMethod/remove", "Removes a two-factor method; the device's signature suffices.",
        description: """
            Signed with operation removeAuthMethod over a challenge from server/authentication/challenge; device alone \
            suffices (a second factor, if given, is checked and counts). device itself cannot be removed \
            (cannotDeactivateDevice). Answers the activated methods.
            """,
        errors: ServerFamily.signedErrors + [.cannotDeactivateDevice])
    struct Params: WireReadable {
        var signed = ServerFamily.SignedParams()
        var method = AuthMethod.pin
        static let fields: [WireField<Self>] =
            ServerFamily.SignedParams.fields.map { $0.lifted(\.signed) } + [.required("method", \.method, .authMethod)]
    }
    static let result = Codec<[AuthMethod]>.activatedAuthMethods
    static func handle(_ params: Params, _ context: CallContext) throws -> [AuthMethod] {
        let signatures = try params.signed.factorSignatures()
        return try context.core.session {
            try $0.removeAuthMethod(
                registrationId: params.signed.registrationId, challengeId: params.signed.challengeId,
                signatures: signatures, method: params.method, caller: nil)
        }
    }
}
