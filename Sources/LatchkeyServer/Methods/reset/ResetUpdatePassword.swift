import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

enum ResetUpdatePassword: RPCMethod {
    static let declaration = MethodDeclaration(
        "reset/updatePassword", "Sets a new password with a verification code; every session of the user ends.",
        description: """
            Sets a new password with a verification code from reset/requestPasswordReset or \
            reset/requestAccountRecovery; every session of the user ends. The password policy is checked before the \
            code; a wrong code counts against 5 tries.
            """,
        errors: [.policyViolation] + ResetFamily.codeErrors)
    struct Params: WireReadable {
        var who = ResetFamily.Identified()
        var verificationCode = ""
        var password = ""
        static let fields: [WireField<Self>] =
            ResetFamily.identifier(\.who.email, \.who.phoneNumber)
            + [.required("verificationCode", \.verificationCode, .text), .required("password", \.password, .text)]
        static let rules: [WireRule<Self>] = [ResetFamily.Identified.rule.at(\.who)]
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> EmptyResult {
        try context.core.resetPassword(try params.who.identifier(), code: params.verificationCode, password: params.password)
        return EmptyResult()
    }
}
