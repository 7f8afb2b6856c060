import LatchkeyContract
import LatchkeyCore
import LatchkeyRPC
import LatchkeyWire

// What several method families share: the params that name one thing, and the handler of the
// methods that only pass that name on to one call (declared once here, so each such method is
// its declaration, its result and that one call). The simulated phone's are in LatchkeyPhoneMethods'
// `Methods/DeviceMethods.swift`.

/// `{sessionId}`: a signed-in user's session.
struct SessionParams: WireParams {
    let sessionId: String
    static let wire = WireMember.required("sessionId", .identifier)
}

/// `{registrationId}`.
struct RegistrationParams: WireParams {
    let registrationId: String
    static let wire = WireMember.registrationId
}

/// `{processId}`: an onboarding process of a device outside the process.
struct ProcessParams: WireWritableParams {
    let processId: String
    static let wire = WireMember.required("processId", .identifier)
}

/// One of two optional members, as the domain's either/or value: `first`'s case when only it is given, `second`'s when only it is.
///
/// Neither or both is the `exactlyOne` rule's `invalidParams` (which reading has reported already,
/// unless the method enforces the rule itself).
func eitherOr<Root, A, B, Value>(
    _ root: Root, _ rule: WireRule<Root>, _ a: A?, _ first: (A) -> Value,
    _ b: B?, _ second: (B) -> Value
) throws -> Value {
    switch (a, b) {
    case (let a?, nil): return first(a)
    case (nil, let b?): return second(b)
    default:
        try rule.enforce(root)
        throw RPCError.invalidParams([ParamProblem("", "must give exactly one of two members")])
    }
}

/// A method that makes one call for a signed-in user (`{sessionId}` only).
protocol SessionCall: RPCMethod where Params == SessionParams {
    static func call(_ core: Latchkey, sessionId: String) throws -> Result
}

extension SessionCall {
    static func handle(_ params: SessionParams, _ context: CallContext) throws -> Result {
        try call(context.core, sessionId: params.sessionId)
    }
}

/// A method that makes one call of the server half on an onboarding process (`{processId}` only).
protocol ProcessCall: RPCMethod where Params == ProcessParams {
    static func call(_ session: ServerSession, processId: String) throws -> Result
}

extension ProcessCall {
    static func handle(_ params: ProcessParams, _ context: CallContext) throws -> Result {
        try context.core.session { try call($0, processId: params.processId) }
    }
}

/// Reasons that methods of several families declare together.
public enum CommonErrors {
    /// The registration's state refuses the call.
    public static let registrationState: [ErrorReason] = [.registrationRemoved, .lockedByAdmin, .registrationLocked, .verificationPending]
    /// A finish without its start, or too late; or the registration's state refuses it.
    public static let finish: [ErrorReason] = [.noSessionInProgress, .sessionExpired] + registrationState
    /// The simulated biometric sensor refuses.
    public static let biometry: [ErrorReason] = [.biometryUnavailable, .biometryFailed, .biometryCancelled]
    /// A single-use token that does not authorise the call.
    public static let token: [ErrorReason] = [.tokenInvalid, .tokenExpired, .tokenPurposeMismatch]
}
