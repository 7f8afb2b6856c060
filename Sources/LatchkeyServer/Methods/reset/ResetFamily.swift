import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

/// What the `reset/` methods share.
enum ResetFamily {
    static let codeErrors: [ErrorReason] = [.verificationCodeInvalid, .verificationCodeExpired]

    /// Who a reset is for, and by which channel: `email` or `phoneNumber`, exactly one.
    ///
    /// The email's and phone number's forms are the rule's, not the members': a code request checks its redirect URL before anything
    /// else, this rule included (`CodeRequest.handle`); the other methods check the rule as they decode.
    struct Identified: WireWritableParams {
        let email: String?
        let phoneNumber: String?
        static let wire = (
            email: WireMember.optional("email", .text, "email channel"),
            phoneNumber: WireMember.optional("phoneNumber", .text, "SMS channel, E.164")
        )
        func identifier() throws -> UserIdentifier {
            try eitherOr(self, Self.rule, email, UserIdentifier.email, phoneNumber, UserIdentifier.phoneNumber)
        }
        static let rule = WireRule<Identified>.all([
            .exactlyOne("email", \.email, "phoneNumber", \.phoneNumber),
            .custom { who, path, problems in
                let prefix = path.isEmpty ? "" : path + "."
                if let problem = who.email.flatMap(Codec<String>.emailProblem) { problems.append(ParamProblem(prefix + "email", problem)) }
                if let problem = who.phoneNumber.flatMap(Codec<String>.phoneNumberProblem) {
                    problems.append(ParamProblem(prefix + "phoneNumber", problem))
                }
            },
        ])
    }

    /// `{email | phoneNumber, redirectUrl, applicationId*}`.
    struct RequestParams: WireParams {
        let who: Identified
        let redirectUrl: String
        let applicationId: String?
        static let wire = (
            who: WireMember.inline(Identified.self), redirectUrl: WireMember.required("redirectUrl", .text), applicationId: WireMember.applicationId
        )
        // The redirect URL is checked before anything else, the identifier rule included (see `handle`).
    }

    /// A request for a code of one kind.
    protocol CodeRequest: RPCMethod where Params == RequestParams, Result == EmptyResult {
        static var kind: ResetKind { get }
    }
}

extension ResetFamily.CodeRequest {
    static func handle(_ params: ResetFamily.RequestParams, _ context: CallContext) throws -> EmptyResult {
        try context.core.checkRedirectUrl(params.redirectUrl, applicationId: params.applicationId)
        try ResetFamily.Identified.rule.enforce(params.who)
        try context.core.requestReset(kind, try params.who.identifier(), redirectUrl: params.redirectUrl, applicationId: params.applicationId)
        return EmptyResult()
    }
}

/// What makes `reset/resetPasskeys`' new passkey in the same transaction as the server verifies it: the simulated phone (LatchkeyPhoneMethods'
/// `PhoneMethods.passkeyAuthenticator`), which the executable hands the server in `ServerOptions`.
public protocol ResetPasskeyAuthenticator: Sendable {
    /// Runs `body` in one transaction of the server half on device `deviceId`, with `makePasskey`: the device's browser and platform
    /// authenticator making a credential from creation options, on the default passkey origin of their RP id.
    /// The transaction states at its start what the device reads and `reads`: what `body` reads on
    /// the server half (`StoreTransaction.willRead`).
    /// - Throws: `notFound` (device), what `makePasskey` throws (the origin, biometry), and what `body` throws.
    func inTransaction<T>(
        onDevice deviceId: String, reading reads: [StoreRead], _ context: CallContext,
        _ body: (ServerSession, _ makePasskey: (CredentialCreationOptions) throws -> RegistrationResponse) throws -> T
    ) throws -> T
}
