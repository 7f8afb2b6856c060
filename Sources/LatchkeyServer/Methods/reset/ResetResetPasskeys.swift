import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeySimulator
import LatchkeyJSON
import LatchkeyRPC

enum ResetResetPasskeys: RPCMethod {
    static let declaration = MethodDeclaration(
        "reset/resetPasskeys", "Removes every passkey and registers the new one, with an account-recovery code.",
        description: """
        With an account-recovery verification code, removes every passkey of the user and registers the new one \
        when given.
        """,
        errors: ResetFamily.codeErrors)
    struct Params: WireReadable {
        var who = ResetFamily.Identified()
        var verificationCode = ""
        var passkey: PasskeyName?
        static let fields: [WireField<Self>] = ResetFamily.identifier(\.who.email, \.who.phoneNumber)
            + [.required("verificationCode", \.verificationCode, .text), .optional("passkey", \.passkey, .object(PasskeyName.self))]
        static let rules: [WireRule<Self>] = [ResetFamily.Identified.rule.at(\.who)]
    }
    static let result = UserFamily.passkeyList
    static func handle(_ params: Params, _ context: CallContext) throws -> [Passkey] {
        try context.core.resetPasskeys(try params.who.identifier(), code: params.verificationCode, newPasskey: params.passkey?.friendlyName)
    }
}
