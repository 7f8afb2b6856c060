import LatchkeyContract

/// The WebAuthn Relying Party an application is: the RP id its passkeys are scoped to, the name
/// a browser shows, the origins its pages and apps run on, and the user-verification policy.
public struct ApplicationRelyingParty: Sendable, Equatable {
    public var rpId: String
    public var rpName: String
    /// Exact origins (`https://example.com:8443`), or Android apps' `android:apk-key-hash:…`.
    public var origins: [String]
    public var userVerification: UserVerificationPolicy

    /// The contract's defaults: `localhost`, served from `https://localhost`, UV required.
    public static let defaults = ApplicationRelyingParty(
        rpId: "localhost", rpName: "Latchkey", origins: ["https://localhost"],
        userVerification: .required)

    /// What the Relying Party's checks need.
    public var settings: RelyingPartySettings {
        RelyingPartySettings(rpId: rpId, origins: origins, userVerification: userVerification)
    }

    /// The first origin whose host is the RP id (where a page of this application runs), if any.
    public var primaryOrigin: String? {
        origins.first { WebOrigin.host(of: $0) == rpId }
    }
}

extension ApplicationRelyingParty {
    /// An Android app's origin (`android:apk-key-hash:` and the signing key's hash).
    public static func isAndroidOrigin(_ origin: String) -> Bool {
        origin.hasPrefix("android:apk-key-hash:") && origin.count > "android:apk-key-hash:".count
    }

    /// The index and the problem of the first origin the RP id does not cover (a web origin whose
    /// host is neither the RP id nor a subdomain of it), or of one that is no origin at all.
    func originProblem() -> (index: Int, message: String)? {
        for (index, origin) in origins.enumerated() where !Self.isAndroidOrigin(origin) {
            guard WebOrigin.host(of: origin) != nil else {
                return (index, "must be an origin such as https://example.com, or android:apk-key-hash:…")
            }
            guard WebOrigin.isSerialized(origin) else {
                return (
                    index,
                    "must be written as a browser sends it: lower-case ASCII scheme and host, no default port, a port without leading zeros, "
                        + "no path or trailing slash"
                )
            }
            guard WebOrigin.rpId(rpId, coversOrigin: origin) else {
                return (index, "must be on the RP id (passkeyRpId) or a subdomain of it")
            }
        }
        return nil
    }
}
