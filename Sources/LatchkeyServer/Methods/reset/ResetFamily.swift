import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

/// What the `reset/` methods share.
enum ResetFamily {
    static let codeErrors: [ErrorReason] = [.verificationCodeInvalid, .verificationCodeExpired]

    /// `email` or `phoneNumber`, exactly one: who asks, and by which channel.
    static func identifier<Root: WireObject>(
        _ email: WritableKeyPath<Root, String?> & Sendable,
        _ phoneNumber: WritableKeyPath<Root, String?> & Sendable
    ) -> [WireField<Root>] {
        [.optional("email", email, .text, "email channel"), .optional("phoneNumber", phoneNumber, .phoneNumber, "SMS channel, E.164")]
    }

    /// Who a reset is for, named by email or phone number (exactly one).
    struct Identified: Sendable {
        var email: String?
        var phoneNumber: String?
        func identifier() throws -> UserIdentifier {
            try eitherOr(self, Self.rule, email, UserIdentifier.email, phoneNumber, UserIdentifier.phoneNumber)
        }
        static let rule = WireRule<Identified>.exactlyOne("email", \.email, "phoneNumber", \.phoneNumber)
    }

    /// `{email | phoneNumber, redirectUrl, applicationId*}`.
    struct RequestParams: WireReadable {
        var who = Identified()
        var redirectUrl = ""
        var applicationId: String?
        static let fields: [WireField<Self>] =
            identifier(\.who.email, \.who.phoneNumber)
            + [.required("redirectUrl", \.redirectUrl, .text), .applicationId(\.applicationId)]
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
    /// - Throws: `notFound` (device), what `makePasskey` throws (the origin, biometry), and what `body` throws.
    func inTransaction<T>(
        onDevice deviceId: String, _ context: CallContext,
        _ body: (ServerSession, _ makePasskey: (CredentialCreationOptions) throws -> RegistrationResponse) throws -> T
    ) throws -> T
}
