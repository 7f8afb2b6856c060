#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A callback URL: `https://`, or `http://` to a loopback host only (`localhost`, 127.0.0.0/8, `[::1]`), with a host, no user info, at
/// most 2 048 characters.
public struct CallbackURL: Sendable, Equatable {
    public static let maxLength = 2048

    public var text: String
    public var secure: Bool
    /// The host as written (an IPv6 literal without its brackets), lower-cased.
    public var host: String

    /// Reads a URL.
    /// - Throws: `CallbackURLProblem` saying what is wrong (never quoting the URL).
    public init(_ text: String) throws(CallbackURLProblem) {
        // The characters first: once they are ASCII, bytes and characters count alike.
        guard !text.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) else {
            throw CallbackURLProblem("holds a space, a control character or a character outside ASCII")
        }
        guard text.utf8.count <= Self.maxLength else { throw CallbackURLProblem("is longer than 2048 characters") }
        let lower = text.lowercased()
        let rest: Substring
        if lower.hasPrefix("https://") {
            secure = true
            rest = text.dropFirst(8)
        } else if lower.hasPrefix("http://") {
            secure = false
            rest = text.dropFirst(7)
        } else {
            throw CallbackURLProblem("must be an https:// URL (or http:// to a loopback host)")
        }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@") else { throw CallbackURLProblem("must not hold user info") }
        var hostPart = Substring(authority)
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw CallbackURLProblem("has an IPv6 host without its closing bracket") }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            // An IPv6 literal is an address and nothing else: a zone id (`%eth0`) would name an interface the address checks never see.
            guard CallbackAddress.ipv6(String(hostPart)) != nil else {
                throw CallbackURLProblem("has a bracketed host that is not an IPv6 address (a zone id is not allowed)")
            }
            try Self.checkPort(authority[authority.index(after: close)...])
        } else if let colon = authority.firstIndex(of: ":") {
            hostPart = authority[..<colon]
            try Self.checkPort(authority[colon...])
        }
        guard !hostPart.isEmpty else { throw CallbackURLProblem("has no host") }
        // A name is letters, digits, `-`, `_` and dots: a percent-encoded host could spell an address the checks would read as a name.
        guard authority.hasPrefix("[") || hostPart.utf8.allSatisfy(Self.isNameByte) else {
            throw CallbackURLProblem("has a host that is neither a name (letters, digits, '-', '_', '.') nor an IP address")
        }
        // A host that ends in a number is an IPv4 address to a URL parser (WHATWG). The resolver reads `10.1` or `0xa9fea9fe` as one
        // too (and the checks judge what it answers), but with a trailing dot it would look the text up as a name: refused.
        guard authority.hasPrefix("[") || !hostPart.hasSuffix(".") || !Self.endsInNumber(hostPart) else {
            throw CallbackURLProblem("has an IP address with a trailing dot: write it without")
        }
        self.text = text
        host = hostPart.lowercased()
        if !secure, !CallbackAddress.isLoopbackHost(host) {
            throw CallbackURLProblem("may use http:// only to a loopback host (localhost, 127.0.0.0/8, [::1]); use https://")
        }
    }

    /// WHATWG's "ends in a number": the last label (one trailing dot aside) is decimal digits or `0x` and hex digits.
    private static func endsInNumber(_ host: Substring) -> Bool {
        let trimmed = host.hasSuffix(".") ? host.dropLast() : host
        let last = trimmed.split(separator: ".", omittingEmptySubsequences: false).last ?? ""
        if !last.isEmpty, last.allSatisfy({ $0.isASCII && $0.isNumber }) { return true }
        let lower = last.lowercased()
        return lower.hasPrefix("0x") && lower.dropFirst(2).allSatisfy(\.isHexDigit)
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."): true
        default: false
        }
    }

    private static func checkPort(_ part: Substring) throws(CallbackURLProblem) {
        guard !part.isEmpty else { return }
        guard part.first == ":" else { throw CallbackURLProblem("has something after its bracketed host that is not a port") }
        let digits = part.dropFirst()
        guard part.first == ":", !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            let port = Int(digits), (1...65535).contains(port)
        else { throw CallbackURLProblem("has a port that is not 1 to 65535") }
    }
}

/// What is wrong with a callback URL, as human text.
public struct CallbackURLProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Which addresses a callback may reach.
///
/// Not link-local, private (RFC 1918, fc00::/7) or unspecified — unless the operator allows them (`--callback-allow-private`).
/// Checked at configuration and at every attempt, after resolving.
public enum CallbackAddress {
    /// A loopback host: `localhost`, 127.0.0.0/8, `::1` (not `localhost.`: a resolver may look that one up anywhere).
    public static func isLoopbackHost(_ host: String) -> Bool {
        if host == "localhost" { return true }
        if let v4 = ipv4(host) { return v4[0] == 127 }
        if let v6 = ipv6(host) { return v6 == [UInt8](repeating: 0, count: 15) + [1] }
        return false
    }

    /// Whether an address (IPv4 or IPv6 text, no brackets) is link-local, private or unspecified.
    ///
    /// Fails closed: text that is neither address (a scoped `fe80::1%eth0` as a resolver may answer) counts as restricted.
    public static func isRestricted(_ address: String) -> Bool {
        if let v4 = ipv4(address) { return isRestricted(v4: v4) }
        guard let v6 = ipv6(address) else { return true }
        if v6.allSatisfy({ $0 == 0 }) { return true }
        // An address that carries an IPv4 address is judged by it too: IPv4-mapped (::ffff:a.b.c.d), IPv4-translated
        // (::ffff:0:a.b.c.d), IPv4-compatible (::a.b.c.d, but ::1), NAT64 (64:ff9b::a.b.c.d) and 6to4 (2002:AABB:CCDD::).
        if let v4 = embeddedIPv4(v6), isRestricted(v4: v4) { return true }
        if v6[0] & 0xFE == 0xFC { return true }  // fc00::/7, unique local
        if v6[0] == 0xFE, v6[1] & 0xC0 == 0x80 { return true }  // fe80::/10, link-local
        return false
    }

    private static func embeddedIPv4(_ v6: [UInt8]) -> [UInt8]? {
        let tail = Array(v6.suffix(4))
        if v6.prefix(10).allSatisfy({ $0 == 0 }), v6[10] == 0xFF, v6[11] == 0xFF { return tail }
        if v6.prefix(8).allSatisfy({ $0 == 0 }), v6[8] == 0xFF, v6[9] == 0xFF, v6[10] == 0, v6[11] == 0 { return tail }
        if v6.prefix(12).allSatisfy({ $0 == 0 }), tail != [0, 0, 0, 1] { return tail }
        if v6.prefix(4) == [0x00, 0x64, 0xFF, 0x9B], v6[4..<12].allSatisfy({ $0 == 0 }) { return tail }
        if v6[0] == 0x20, v6[1] == 0x02 { return Array(v6[2..<6]) }
        return nil
    }

    private static func isRestricted(v4: [UInt8]) -> Bool {
        v4 == [0, 0, 0, 0] || v4[0] == 0 || v4[0] == 10 || (v4[0] == 172 && v4[1] & 0xF0 == 16) || (v4[0] == 192 && v4[1] == 168)
            || (v4[0] == 169 && v4[1] == 254)
    }

    /// The 4 bytes of a dotted IPv4 address.
    static func ipv4(_ text: String) -> [UInt8]? {
        var address = in_addr()
        guard inet_pton(AF_INET, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: &address) { Array($0) }
    }

    /// The 16 bytes of an IPv6 address.
    static func ipv6(_ text: String) -> [UInt8]? {
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: &address) { Array($0) }
    }

    /// Whether `host` is an IP literal (checked as it is, not resolved).
    public static func isLiteral(_ host: String) -> Bool { ipv4(host) != nil || ipv6(host) != nil }
}

/// Resolves a host name to its addresses (text), as a callback's delivery will connect.
public protocol HostResolver: Sendable {
    /// The addresses, or nil when the name does not resolve.
    func addresses(of host: String) -> [String]?
}

/// The system's resolver (`getaddrinfo`).
public struct SystemHostResolver: HostResolver {
    public init() {}

    public func addresses(of host: String) -> [String]? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &result) == 0, let first = result else { return nil }
        defer { freeaddrinfo(result) }
        var found: [String] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let entry = next {
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(entry.pointee.ai_addr, entry.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 {
                let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if !found.contains(text) { found.append(text) }
            }
            next = entry.pointee.ai_next
        }
        return found
    }
}
