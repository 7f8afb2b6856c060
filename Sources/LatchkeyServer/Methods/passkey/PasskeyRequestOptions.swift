import LatchkeyCore
import LatchkeyRPC
import LatchkeyWire

/// `passkey/requestOptions`: options for `navigator.credentials.get()` to sign in.
enum PasskeyRequestOptions: RPCMethod {
    static let declaration = MethodDeclaration(
        "passkey/requestOptions", "Options to sign in with a passkey, for a named user or discoverable (no identifier).",
        description: """
            Opens a WebAuthn authentication ceremony and answers its ceremonyId and publicKey, a \
            PublicKeyCredentialRequestOptionsJSON (what PublicKeyCredential.parseRequestOptionsFromJSON takes). Named by \
            at most one of email, phoneNumber, loginName or userId, allowCredentials lists that user's passkeys; with none \
            it is empty (a discoverable-credential sign-in). An identifier that matches nobody gets one made-up credential, \
            the same every time. The ceremony is valid 300 s and serves one passkey/login.
            """,
        errors: [.notFound])
    struct Params: WireParams {
        let email: String?
        let phoneNumber: String?
        let loginName: String?
        let userId: String?
        let applicationId: String?
        static let wire = (
            email: WireMember.optional("email", .email), phoneNumber: WireMember.optional("phoneNumber", .phoneNumber, "E.164"),
            loginName: WireMember.optional("loginName", .identifier), userId: WireMember.optional("userId", .identifier),
            applicationId: WireMember.applicationId
        )
        static let rules: [WireRule<Self>] = [
            .custom { params, _, problems in
                let given = [
                    ("email", params.email), ("phoneNumber", params.phoneNumber), ("loginName", params.loginName),
                    ("userId", params.userId),
                ].filter { $0.1 != nil }.map(\.0)
                if given.count > 1 {
                    problems.append(ParamProblem(given[1], "cannot be given together with \(given[0]) (give at most one identifier)"))
                }
            }
        ]
        var identifier: UserIdentifier? {
            if let email { return .email(email) }
            if let phoneNumber { return .phoneNumber(phoneNumber) }
            if let loginName { return .loginName(loginName) }
            return userId.map(UserIdentifier.userId)
        }
    }
    typealias Result = RequestCeremony
    static func handle(_ params: Params, _ context: CallContext) throws -> RequestCeremony {
        RequestCeremony(options: try context.core.passkeyRequestOptions(params.identifier, applicationId: params.applicationId))
    }
}
