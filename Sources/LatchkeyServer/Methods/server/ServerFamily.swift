import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

/// What the `server/` methods share.
enum ServerFamily {
    static let challengeErrors: [ErrorReason] = [.noSessionInProgress, .sessionExpired] + CommonErrors.registrationState

    static let signedErrors: [ErrorReason] = challengeErrors + [.authMethodNotAllowed, .authenticationFailed]

    /// `{registrationId, challengeId}`.
    struct ChallengeParams: WireWritableParams {
        let registrationId: String
        let challengeId: String
        static let wire = (registrationId: WireMember.registrationId, challengeId: WireMember.required("challengeId", .identifier))
    }

    /// `{registrationId, challengeId, signatures}`.
    struct SignedParams: WireWritableParams {
        let challenge: ChallengeParams
        let signatures: SignaturesParam
        static let wire = (
            challenge: WireMember.inline(ChallengeParams.self), signatures: WireMember.required("signatures", .object(SignaturesParam.self))
        )
        var registrationId: String { challenge.registrationId }
        var challengeId: String { challenge.challengeId }
    }

    /// `{registrationId, token}`.
    struct TokenParams: WireWritableParams {
        let registrationId: String
        let token: String
        static let wire = (registrationId: WireMember.registrationId, token: WireMember.required("token", .text))
    }
}

extension WireMember where Value == String {
    /// The app installation that asks (limits and audit events are kept per installation).
    static let installationId = WireMember.required(
        "installationId", .installationId, "names the app installation that asks; 1–128 printable ASCII characters")
}
