import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeyRPC
import LatchkeyServer
import LatchkeyWire

// The wire forms of the simulated phone's values: how a user proves themselves, and what a device
// answers when an activation, an authentication or an add-or-update opens.

/// How a user proves themselves: a method, and the PIN for `pin`.
struct AuthParameterParam: WireWritableParams {
    let method: AuthMethod
    let pin: String?

    static let schemaName: String? = "AuthParameter"
    static let wire = (method: WireMember.required("method", .authMethod), pin: WireMember.optional("pin", .text, "required for method pin"))
    static let rules: [WireRule<Self>] = [
        .custom { parameter, path, problems in
            if parameter.method == .pin, parameter.pin == nil { problems.append(ParamProblem("\(path).pin", "is required for method pin")) }
        }
    ]

    var domain: AuthParameter { AuthParameter(method: method, pin: pin) }
}

/// The authParameter of a finish that may yield a token.
///
/// The seed's `EncapAuthParameter` carries the token purpose (000: `authParameter.tokenPurpose =
/// .addOrUpdateRecovery`), so it is accepted there too, as the same thing as the call's own
/// `tokenPurpose`.
struct FinishAuthParameterParam: WireWritableParams {
    let parameter: AuthParameterParam
    let tokenPurpose: TokenPurpose

    static let schemaName: String? = "FinishAuthParameter"
    static let wire = (
        parameter: WireMember.inline(AuthParameterParam.self),
        tokenPurpose: WireMember.defaulted(
            "tokenPurpose", .enumeration(TokenPurpose.self), default: .none,
            "the seed's place for it (EncapAuthParameter.tokenPurpose): the same as the call's tokenPurpose")
    )
    static let rules: [WireRule<Self>] = AuthParameterParam.rules.map { $0.at(\.parameter) }

    var domain: AuthParameter { parameter.domain }
}

extension WireMember where Value == FinishAuthParameterParam {
    /// `authParameter` and `tokenPurpose` of a finish that may yield a token.
    static let finishAuthParameter = WireMember.required("authParameter", .object(FinishAuthParameterParam.self))
}

extension WireRule {
    /// The call's `tokenPurpose` and its authParameter's agree when both name a purpose (`none`, the default, names none).
    static func oneTokenPurpose(
        _ outer: KeyPath<Root, TokenPurpose> & Sendable,
        _ inner: KeyPath<Root, FinishAuthParameterParam> & Sendable
    ) -> WireRule {
        .custom { root, path, problems in
            let prefix = path.isEmpty ? "" : path + "."
            let given = root[keyPath: inner].tokenPurpose
            if given != .none, root[keyPath: outer] != .none, given != root[keyPath: outer] {
                problems.append(ParamProblem(prefix + "authParameter.tokenPurpose", "differs from tokenPurpose: give one of them"))
            }
        }
    }
}

/// The token purpose a finish asks for: the call's, else its authParameter's.
func requestedTokenPurpose(_ outer: TokenPurpose, _ parameter: FinishAuthParameterParam) -> TokenPurpose {
    outer != .none ? outer : parameter.tokenPurpose
}

extension Codec where Value == AuthParameterParam {
    static let authParameter = Codec.object(AuthParameterParam.self)
}

extension ActivationOffer: WireObject {
    public static let schemaName: String? = "ActivationOffer"
    public static let fields: [WireField<Self>] =
        [
            .required("authMethodsForActivation", \.authMethodsForActivation, .authMethods)
        ] + pinRuleFields(\.pinCodeType, \.pinCodeLengthMin, \.pinCodeLengthMax)
}

extension AuthenticationChallengeInfo: WireObject {
    public static let fields: [WireField<Self>] =
        [
            .required("authenticationMethods", \.authenticationMethods, .authMethods),
            .required(
                "authenticationMethod", \.authenticationMethod, .authMethod,
                "the method of the last successful authentication if still activated, else the strongest activated one"),
        ] + ChallengeStanding.fields.map { $0.lifted(\.standing) } + pinRuleFields(\.pinCodeType, \.pinCodeLengthMin, \.pinCodeLengthMax)
}

extension AddOrUpdateOffer: WireObject {
    public static let fields: [WireField<Self>] =
        [
            .required("allowedAuthMethodsToActivate", \.allowedAuthMethodsToActivate, .authMethods)
        ] + AuthenticationChallengeInfo.fields.map { $0.lifted(\.challenge) }
}
