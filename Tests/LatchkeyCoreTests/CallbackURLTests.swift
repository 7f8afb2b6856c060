import Testing

@testable import LatchkeyCore

/// A callback URL's host is a name or an address the checks can read: no zone id on an IPv6 literal (it would send the attempt out
/// of an interface the link-local check never sees), no percent-encoded name (it could spell a private address).
@Suite struct CallbackURLTests {
    @Test(arguments: [
        "https://[fe80::1%eth0]/hook", "https://[fe80::fc:ff:fe00:1%4]:8443/", "https://[fe80::1%25eth0]/hook",
        "https://[fd00::1%25eth0]/hook", "https://[not-an-address]/hook", "https://%31%30.0.0.1/hook", "https://10%2e0.0.1/hook",
        "https://10.0.0.1%2e/hook", "https://exa%6Dple.com/hook",
        // An address with a trailing dot (a resolver would look it up as a name); `localhost.` (likewise, anywhere).
        "https://10.0.0.1./hook", "https://169.254.169.254./latest", "https://167772161./", "https://0xa9fea9fe./", "https://10.1./",
        "https://93.184.216.34./", "https://host.0x1f./", "http://localhost./hook", "http://LOCALHOST./", "http://[::1]./",
    ])
    func refused(_ url: String) {
        #expect(throws: CallbackURLProblem.self) { try CallbackURL(url) }
    }

    @Test(arguments: [
        "https://example.com/hook", "https://hooks_1.example-2.com:8443/a%20b?c=%2F", "https://[2001:db8::1]/hook", "http://[::1]:8080/",
        "https://EXAMPLE.com./hook", "http://127.0.0.1:9/", "https://93.184.216.34/hook", "https://api1.example.com/", "https://x.com9./",
        "https://10.1/",
    ])
    func accepted(_ url: String) throws {
        _ = try CallbackURL(url)
    }

    @Test("plain http:// reaches loopback addresses only, whatever its name resolves to at the attempt")
    func plainHTTPGoesToLoopbackOnly() {
        func policy(_ addresses: [String]) -> CallbackPolicy { CallbackPolicy(allowPrivate: true, resolver: FixedResolver(addresses: addresses)) }
        #expect(policy(["127.0.0.1"]).destination(of: "localhost", loopbackOnly: true) == .success("127.0.0.1"))
        #expect(policy(["::1"]).destination(of: "localhost", loopbackOnly: true) == .success("::1"))
        #expect(policy(["192.0.2.77"]).destination(of: "localhost", loopbackOnly: true) == .failure(.addressNotAllowed))
        #expect(policy(["127.0.0.1", "10.1.2.3"]).destination(of: "localhost", loopbackOnly: true) == .failure(.addressNotAllowed))
        #expect(policy([]).destination(of: "192.0.2.77", loopbackOnly: true) == .failure(.addressNotAllowed))
        #expect(policy(["192.0.2.77"]).destination(of: "example.com") == .success("192.0.2.77"))
    }

    @Test("an address a resolver answers with a zone id, or text that is no address, counts as restricted (fails closed)")
    func unreadableAddressesAreRestricted() {
        #expect(CallbackAddress.isRestricted("fe80::1%eth0"))
        #expect(CallbackAddress.isRestricted("2001:db8::1%eth0"))
        #expect(CallbackAddress.isRestricted("not an address"))
        #expect(!CallbackAddress.isRestricted("2001:db8::1"))
    }

    @Test(
        "an IPv6 address that carries a private or link-local IPv4 address is judged by it",
        arguments: [
            "::ffff:10.0.0.1", "::ffff:0:10.0.0.1", "::10.0.0.1", "64:ff9b::10.0.0.1", "2002:a00:1::1", "::ffff:169.254.169.254",
            "64:ff9b::192.168.1.1", "2002:c0a8:101::",
        ])
    func embeddedPrivateIPv4IsRestricted(_ address: String) {
        #expect(CallbackAddress.isRestricted(address))
    }

    @Test(
        "one that carries a public IPv4 address is not; nor is loopback ::1",
        arguments: [
            "::ffff:93.184.216.34", "64:ff9b::93.184.216.34", "2002:5db8:d822::1", "::1",
        ])
    func embeddedPublicIPv4IsAllowed(_ address: String) {
        #expect(!CallbackAddress.isRestricted(address))
        #expect(!CallbackAddress.isRestricted("93.184.216.34"))
    }
}

/// A resolver that answers the same addresses for every name.
private struct FixedResolver: HostResolver {
    var addresses: [String]
    func addresses(of host: String) -> [String]? { addresses }
}
