import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum ResetUpdatePassword: RPCMethod {
    static let declaration = MethodDeclaration(
        "reset/updatePassword", "Sets a new password with a verification code; every session of the user ends.",
        description: """
            Sets a new password with a verification code from reset/requestPasswordReset or \
            reset/requestAccountRecovery; every session of the user ends. The password policy is checked before the \
            code; a wrong code counts against 5 tries.
            """,
        errors: [.policyViolation] + ResetFamily.codeErrors)
    struct Params: WireParams {
        let who: ResetFamily.Identified
        let verificationCode: String
        let password: String
        static let wire = (
            who: WireMember.inline(ResetFamily.Identified.self), verificationCode: WireMember.required("verificationCode", .text),
            password: WireMember.required("password", .text)
        )
        static let rules: [WireRule<Self>] = [ResetFamily.Identified.rule.at(\.who)]
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> EmptyResult {
        try context.core.resetPassword(try params.who.identifier(), code: params.verificationCode, password: params.password)
        return EmptyResult()
    }
}
