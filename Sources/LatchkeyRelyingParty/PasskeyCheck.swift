import Crypto
import LatchkeyContract

/// A Relying Party check of the contract's list, named as `data.check` names it, in the
/// contract's order.
public enum PasskeyCheck: String, Sendable, CaseIterable {
    case type, challenge, origin, encoding, credential, userHandle, rpId, userPresence, userVerification, flags
    case credentialId, publicKey, algorithm, attestation, signature, signCount
}

/// The first Relying Party check a credential failed.
///
/// `detail` says what was wrong for logs; it quotes nothing the client sent.
public struct PasskeyCheckFailure: Error, Sendable, Equatable {
    public let check: PasskeyCheck
    public let detail: String

    public init(_ check: PasskeyCheck, _ detail: String) {
        self.check = check
        self.detail = detail
    }

    /// A signature counter that did not grow: the caller refuses the login and audits
    /// `passkeyCloneSuspected`.
    public var isCloneSuspected: Bool { check == .signCount }

    /// The contract's answer: `passkeyInvalid` with `data.check`.
    public var domainError: DomainError {
        DomainError(
            .passkeyInvalid, "The passkey credential failed the \(check.rawValue) check: \(detail)",
            [(.check, .string(check.rawValue))])
    }
}

/// The client data the JSON layer read from `clientDataJSON` (WebAuthn §5.8.1); a member
/// missing or of another type is nil, and one of another type is named in `mistyped`.
public struct CollectedClientData: Sendable, Equatable {
    public var type: String?
    public var challenge: String?
    public var origin: String?
    public var crossOrigin: Bool?
    /// The first of `type`, `challenge`, `origin`, `topOrigin` (WebAuthn L3: a string) and `crossOrigin` present with another
    /// JSON type (`crossOrigin: "true"`): the `encoding` check.
    public var mistyped: String?

    public init(type: String?, challenge: String?, origin: String?, crossOrigin: Bool?, mistyped: String? = nil) {
        self.type = type
        self.challenge = challenge
        self.origin = origin
        self.crossOrigin = crossOrigin
        self.mistyped = mistyped
    }
}

/// Whether the application requires user verification (`passkeyUserVerification`).
public enum UserVerificationPolicy: String, Sendable, CaseIterable {
    case required, preferred
}

/// An application's Relying Party: its RP id, the origins it accepts, its user-verification
/// policy.
public struct RelyingPartySettings: Sendable, Equatable {
    public var rpId: String
    /// Exact origins (scheme, host and port), or `android:apk-key-hash:…` entries.
    public var origins: [String]
    public var userVerification: UserVerificationPolicy

    public init(rpId: String, origins: [String], userVerification: UserVerificationPolicy) {
        self.rpId = rpId
        self.origins = origins
        self.userVerification = userVerification
    }

    /// SHA-256 of the RP id: what an authenticator's data begins with for it.
    public var rpIdHash: [UInt8] { SHA256.hash(data: Array(rpId.utf8)).byteArray }
}

/// Which ceremony client data belongs to.
public enum CeremonyType: String, Sendable {
    case create = "webauthn.create"
    case get = "webauthn.get"
}
