import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

/// `reset/passkeyCreationOptions`: options for the new passkey of a reset, the code checked, not consumed.
enum ResetPasskeyCreationOptions: RPCMethod {
    static let declaration = MethodDeclaration(
        "reset/passkeyCreationOptions", "Creation options for the passkey reset/resetPasskeys will register, with a code.",
        description: """
            Checks an account-recovery verification code as reset/resetPasskeys does (a wrong one counts) without \
            consuming it, and opens a registration ceremony for that user: {ceremonyId, publicKey} for an outside \
            authenticator, whose credential then goes to reset/resetPasskeys with the same code.
            """,
        errors: ResetFamily.codeErrors + [.notFound])
    struct Params: WireParams {
        let who: ResetFamily.Identified
        let verificationCode: String
        let applicationId: String?
        static let wire = (
            who: WireMember.inline(ResetFamily.Identified.self), verificationCode: WireMember.required("verificationCode", .text),
            applicationId: WireMember.applicationId
        )
        static let rules: [WireRule<Self>] = [ResetFamily.Identified.rule.at(\.who)]
    }
    typealias Result = CreationCeremony
    static func handle(_ params: Params, _ context: CallContext) throws -> CreationCeremony {
        CreationCeremony(
            options: try context.core.resetPasskeyCreationOptions(
                try params.who.identifier(), code: params.verificationCode,
                applicationId: params.applicationId))
    }
}
