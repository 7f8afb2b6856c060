import LatchkeyContract

/// The WebAuthn Relying Party an application is: the RP id its passkeys are scoped to, the name
/// a browser shows, the origins its pages and apps run on, and the user-verification policy.
public struct ApplicationRelyingParty: Sendable, Equatable {
    public var rpId: String
    public var rpName: String
    /// Exact origins (`https://example.com:8443`), or Android apps' `android:apk-key-hash:…`.
    public var origins: [String]
    public var userVerification: UserVerificationPolicy

    public init(rpId: String, rpName: String, origins: [String], userVerification: UserVerificationPolicy) {
        self.rpId = rpId
        self.rpName = rpName
        self.origins = origins
        self.userVerification = userVerification
    }

    /// The contract's defaults: `localhost`, served from `https://localhost`, UV required.
    public static let defaults = ApplicationRelyingParty(rpId: "localhost", rpName: "Latchkey", origins: ["https://localhost"],
                                                      userVerification: .required)

    /// What the Relying Party's checks need.
    public var settings: RelyingPartySettings {
        RelyingPartySettings(rpId: rpId, origins: origins, userVerification: userVerification)
    }

    /// The first origin whose host is the RP id (where a page of this application runs), if any.
    public var primaryOrigin: String? {
        origins.first { WebOrigin($0)?.host == rpId }
    }
}

/// A web origin, `scheme://host[:port]`, as a browser writes it in client data.
public struct WebOrigin: Sendable, Equatable {
    public var scheme: String
    public var host: String
    public var port: Int?

    /// Reads `https://host[:port]` or `http://host[:port]` with nothing after; nil for another form.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == "https" || parts[0] == "http", parts[1].hasPrefix("//") else { return nil }
        scheme = String(parts[0])
        let authority = parts[1].dropFirst(2)
        let hostAndPort = authority.split(separator: ":", omittingEmptySubsequences: false)
        guard hostAndPort.count <= 2, let first = hostAndPort.first, Self.isHost(first) else { return nil }
        host = first.lowercased() == String(first) ? String(first) : ""
        guard !host.isEmpty else { return nil }
        if hostAndPort.count == 2 {
            guard let number = Int(hostAndPort[1]), (1...65_535).contains(number), String(number) == hostAndPort[1] else { return nil }
            port = number
        } else {
            port = nil
        }
    }

    /// A lower-case DNS name or IPv4 address: labels of letters, digits and hyphens.
    private static func isHost(_ text: Substring) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 253 else { return false }
        return text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63 && label.utf8.allSatisfy { byte in
                (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == UInt8(ascii: "-")
            }
        }
    }

    /// Whether the RP id `rpId` may be used from this origin: the host itself or a parent domain of it.
    public func isWithin(rpId: String) -> Bool { host == rpId || host.hasSuffix("." + rpId) }
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
            guard let web = WebOrigin(origin) else {
                return (index, "must be an origin such as https://example.com, or android:apk-key-hash:…")
            }
            guard web.isWithin(rpId: rpId) else {
                return (index, "must be on the RP id \(rpId) or a subdomain of it")
            }
        }
        return nil
    }
}
