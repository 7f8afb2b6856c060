/// Web origins as WebAuthn compares them with an RP id: the host of `scheme://host[:port]`, and
/// whether an RP id is that host or a parent domain of it (what a browser checks before
/// `create()`/`get()`, and what `admin/configureApplication` checks of `passkeyOrigins`).
public enum WebOrigin {
    /// The lower-cased host of an `http` or `https` origin (`https://login.example.com:8443` →
    /// `login.example.com`; an IPv6 literal keeps its brackets); nil for anything else: another
    /// scheme (an `android:apk-key-hash:…` origin included), a path, a query, user info, an
    /// empty host or a port that is not 1–5 digits.
    public static func host(of origin: String) -> String? { authority(of: origin)?.host }

    /// Whether a web origin is written as a browser serialises it (HTML's ASCII serialisation of
    /// an origin): lower-case scheme and host, ASCII only (an international host in its `xn--`
    /// form), no default port (443 for https, 80 for http), a port of 1–65535 without leading
    /// zeros, no path and no trailing `/` — the only form client data ever carries.
    public static func isSerialized(_ origin: String) -> Bool {
        guard let authority = authority(of: origin), origin == origin.lowercased(), origin.allSatisfy(\.isASCII) else { return false }
        // What a URL parser refuses in a domain (WHATWG's forbidden domain code points, beyond those `authority` refuses).
        guard !authority.host.contains(where: { "%<>^|".contains($0) || ($0.asciiValue ?? 0x20) < 0x20 || $0.asciiValue == 0x7F }) else {
            return false
        }
        guard let port = authority.port else { return true }
        let defaultPort = origin.hasPrefix("https://") ? "443" : "80"
        return port != defaultPort && !port.hasPrefix("0") && (Int(port) ?? 0) <= 65535
    }

    /// The lower-cased host of an `http` or `https` origin and its port as written (nil when none is).
    private static func authority(of origin: String) -> (host: String, port: Substring?)? {
        let text = origin.lowercased()
        let rest: Substring
        if text.hasPrefix("https://") {
            rest = text.dropFirst(8)
        } else if text.hasPrefix("http://") {
            rest = text.dropFirst(7)
        } else {
            return nil
        }
        guard !rest.isEmpty, !rest.contains(where: { "/?#@\\ ".contains($0) }) else { return nil }
        var host = rest
        var port: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            host = rest[...close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                port = after.dropFirst()
            }
        } else if let colon = rest.firstIndex(of: ":") {
            host = rest[..<colon]
            port = rest[rest.index(after: colon)...]
        }
        if let port, port.isEmpty || port.count > 5 || !port.allSatisfy({ $0.isASCII && $0.isNumber }) { return nil }
        guard !host.isEmpty, !host.hasPrefix("."), !host.hasSuffix("."), !host.contains("..") else { return nil }
        return (String(host), port)
    }

    /// Whether `rpId` is `host` or a parent domain of it, label by label (`example.com` covers `login.example.com`, not `badexample.com`).
    ///
    /// Case-insensitive.
    public static func rpId(_ rpId: String, covers host: String) -> Bool {
        let rpId = rpId.lowercased()
        let host = host.lowercased()
        guard !rpId.isEmpty else { return false }
        return host == rpId || host.hasSuffix("." + rpId)
    }

    /// Whether `rpId` covers the host of the web origin `origin` (false for an origin that is not
    /// a web origin).
    public static func rpId(_ rpId: String, coversOrigin origin: String) -> Bool {
        guard let host = host(of: origin) else { return false }
        return self.rpId(rpId, covers: host)
    }
}
