import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

/// What the `server/` methods share.
enum ServerFamily {
    static let challengeErrors: [ErrorReason] = [.noSessionInProgress, .sessionExpired] + CommonErrors.registrationState

    static let signedErrors: [ErrorReason] = challengeErrors + [.authMethodNotAllowed, .authenticationFailed]

    /// `{registrationId, challengeId}`.
    struct ChallengeParams: WireReadable {
        var registrationId = ""
        var challengeId = ""
        static let fields: [WireField<Self>] = [.registrationId(\.registrationId), .required("challengeId", \.challengeId, .identifier)]
    }

    /// `{registrationId, challengeId, signatures}`.
    struct SignedParams: WireReadable {
        var challenge = ChallengeParams()
        var signatures = SignaturesParam()
        static let fields: [WireField<Self>] =
            ChallengeParams.fields.map { $0.lifted(\.challenge) } + [
                .required("signatures", \.signatures, .object(SignaturesParam.self))
            ]
        var registrationId: String { challenge.registrationId }
        var challengeId: String { challenge.challengeId }
        func factorSignatures() throws -> FactorSignatures { try signatures.domain(at: "signatures") }
    }

    /// `{registrationId, token}`.
    struct TokenParams: WireReadable {
        var registrationId = ""
        var token = ""
        static let fields: [WireField<Self>] = [.registrationId(\.registrationId), .required("token", \.token, .text)]
    }
}

extension WireField {
    /// The app installation that asks (limits and audit events are kept per installation).
    static func installationId(_ keyPath: WritableKeyPath<Root, String> & Sendable) -> WireField {
        .required("installationId", keyPath, .installationId, "names the app installation that asks; 1–128 printable ASCII characters")
    }
}

extension WireRule {
    /// The rule with the problems' paths under `member`.
    func at(path member: String) -> WireRule {
        let check = self.check
        return WireRule.custom { root, path, problems in check(root, path.isEmpty ? member : "\(path).\(member)", &problems) }
    }
}
