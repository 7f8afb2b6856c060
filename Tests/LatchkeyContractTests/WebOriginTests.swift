import Testing

@testable import LatchkeyContract

/// Web origins against RP ids: hosts parsed strictly; an RP id covers its host and its subdomains.
@Suite struct WebOriginTests {
    @Test("hosts of web origins; nil for anything else")
    func hosts() {
        #expect(WebOrigin.host(of: "https://localhost") == "localhost")
        #expect(WebOrigin.host(of: "http://localhost:8080") == "localhost")
        #expect(WebOrigin.host(of: "https://Login.Example.COM:8443") == "login.example.com")
        #expect(WebOrigin.host(of: "https://[::1]:443") == "[::1]")
        #expect(WebOrigin.host(of: "https://[::1]") == "[::1]")
        for bad in [
            "android:apk-key-hash:abc", "ftp://example.com", "https://", "https://example.com/", "https://example.com?x",
            "https://user@example.com", "https://example.com:", "https://example.com:123456", "https://example.com:8a",
            "https://.example.com", "https://example..com", "https://[::1", "https://[::1]x", "example.com",
        ] {
            #expect(WebOrigin.host(of: bad) == nil, "\(bad)")
        }
    }

    @Test("origins written as a browser serialises them; nothing else is")
    func serialized() {
        for good in [
            "https://example.com", "http://localhost:8080", "https://example.com:8443", "https://example.com:65535",
            "https://xn--bcher-kva.example.com", "https://[::1]:8443", "http://example.com:443",
        ] {
            #expect(WebOrigin.isSerialized(good), "\(good)")
        }
        for bad in [
            "https://Example.com", "HTTPS://example.com", "https://example.com:443", "http://example.com:80", "https://example.com/",
            "https://example.com:08443", "https://example.com:0", "https://example.com:65536", "https://example.com:99999",
            "https://b\u{FC}cher.example.com", "https://ex%61mple.com", "https://ex|ample.com", "https://ex\u{7F}ample.com",
            "android:apk-key-hash:abc",
        ] {
            #expect(!WebOrigin.isSerialized(bad), "\(bad)")
        }
    }

    @Test("an RP id covers its host and its subdomains, label by label")
    func covers() {
        #expect(WebOrigin.rpId("example.com", covers: "example.com"))
        #expect(WebOrigin.rpId("example.com", covers: "login.example.com"))
        #expect(WebOrigin.rpId("Example.com", covers: "a.b.EXAMPLE.com"))
        #expect(!WebOrigin.rpId("example.com", covers: "badexample.com"))
        #expect(!WebOrigin.rpId("login.example.com", covers: "example.com"))
        #expect(!WebOrigin.rpId("", covers: "example.com"))
        #expect(WebOrigin.rpId("localhost", coversOrigin: "http://localhost:8080"))
        #expect(!WebOrigin.rpId("localhost", coversOrigin: "android:apk-key-hash:abc"))
    }
}
