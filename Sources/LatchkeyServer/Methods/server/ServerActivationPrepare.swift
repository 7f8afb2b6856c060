import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum ServerActivationPrepare: RPCMethod {
    static let declaration = MethodDeclaration(
        "server/activation/prepare", "Checks an activation code and opens an activation for keys made outside the process.",
        description: """
            Checks the activation code (5 wrong codes an hour per installationId) and binds it to a new activation for 300 s; \
            answers the challenge the keys' proofs sign and what the keys are to be made for. A second prepare of the same code \
            from the same installation replaces the first; server/activation/commit completes it.
            """,
        errors: [.notFound, .rateLimited, .activationCodeInvalid, .activationCodeExpired])
    struct Params: WireParams {
        let activationCode: String
        let installationId: String
        let applicationId: String?
        static let wire = (
            activationCode: WireMember.required("activationCode", .text), installationId: WireMember.installationId,
            applicationId: WireMember.applicationId
        )
    }
    static let result = Codec.preparedActivation
    static func handle(_ params: Params, _ context: CallContext) throws -> KeyRequest {
        try context.core.session {
            try $0.prepareActivation(
                code: params.activationCode, applicationId: params.applicationId,
                caller: .installation(params.installationId))
        }
    }
}
