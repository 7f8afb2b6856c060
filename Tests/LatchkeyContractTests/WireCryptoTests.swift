import Crypto
import Foundation
import Testing

@testable import LatchkeyContract

/// The contract's wire crypto: keys, signatures and the signed payload, exactly as written.
@Suite struct WireCryptoTests {
    let key = P256.Signing.PrivateKey()
    var sec1: [UInt8] { Array(key.publicKey.x963Representation) }

    @Test("a 65-byte uncompressed point on the curve reads; the canonical base64url round-trips")
    func validKey() throws {
        let parsed = try #require(PublicKey(sec1: sec1))
        #expect(parsed.base64url.count == 87)
        #expect(PublicKey(base64url: parsed.base64url) == parsed)
    }

    @Test("every other form of a key is refused: off the curve, infinity, compressed, lengths, x ≥ p")
    func refusedKeys() {
        var offCurve = sec1
        offCurve[64] ^= 0x01
        #expect(PublicKey(sec1: offCurve) == nil, "a point off the curve")
        #expect(PublicKey(sec1: [0x00]) == nil, "the point at infinity")
        #expect(PublicKey(sec1: Array(key.publicKey.compressedRepresentation)) == nil, "a compressed point")
        #expect(PublicKey(sec1: Array(sec1.prefix(64))) == nil)
        #expect(PublicKey(sec1: sec1 + [0]) == nil)
        var wrongPrefix = sec1
        wrongPrefix[0] = 0x06
        #expect(PublicKey(sec1: wrongPrefix) == nil, "a hybrid point")
        // x = p (not reduced): the field prime of P-256.
        let p: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x01] + [UInt8](repeating: 0, count: 12) + [UInt8](repeating: 0xFF, count: 12)
        #expect(PublicKey(sec1: [0x04] + p + Array(sec1.suffix(32))) == nil, "a coordinate ≥ p")
    }

    @Test("base64url is canonical: no padding, no other alphabet, no stray bits")
    func canonicalBase64URL() {
        let text = Base64URL.encode(sec1)
        #expect(Base64URL.decode(text) == sec1)
        #expect(Base64URL.decode(text + "=") == nil)
        #expect(Base64URL.decode("-_8") == [0xFB, 0xFF])
        #expect(Base64URL.decode("+_8") == nil, "the standard alphabet's + is not base64url")
        #expect(Base64URL.decode("-/8") == nil, "the standard alphabet's / is not base64url")
        #expect(Base64URL.decode("AA") == [0])
        #expect(Base64URL.decode("AB") == nil, "stray bits")
        #expect(Base64URL.decode("AF") == nil, "the unused bits of the last character must be zero")
        #expect(Base64URL.decode("A") == nil)
        #expect(Base64URL.decode("AA AA") == nil)
    }

    @Test("base64url refuses every byte outside its alphabet, in each place of a whole group and of a short last one")
    func base64URLAlphabetInEveryPlace() {
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        for byte in UInt8(0)...UInt8(0x7F) {
            let inAlphabet = alphabet.contains(byte)
            for (valid, place) in [("AAAAAAAA", 1), ("AAAAAAAA", 3), ("AAAAAAAA", 6), ("AAAAAA", 4), ("AAAAAAA", 6), ("AAAAAAAA", 0)] {
                var text = Array(valid.utf8)
                text[place] = byte
                let decoded = Base64URL.decode(String(decoding: text, as: UTF8.self))
                // In a whole group every character of the alphabet may stand; the last one of a short group must also leave its
                // unused bits zero (below).
                if !inAlphabet { #expect(decoded == nil, "byte \(byte) at \(place) of \(valid)") }
                if inAlphabet, text.count % 4 == 0 { #expect(decoded?.count == text.count / 4 * 3, "byte \(byte) at \(place) of \(valid)") }
            }
        }
        #expect(Base64URL.decode("AAA") == [0, 0])
        #expect(Base64URL.decode("AAE") == [0, 1])
        #expect(Base64URL.decode("AAB") == nil, "stray bits after two bytes")
        #expect(Base64URL.decode("AAAAA") == nil, "one character over a whole group holds no byte")
        #expect(Base64URL.decode("") == [])
    }

    @Test("base64url of every length 0–70 is Foundation's base64 in the URL alphabet without padding, and reads back")
    func base64URLAgainstFoundation() {
        var generator = SystemRandomNumberGenerator()
        for count in 0...70 {
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let foundation = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == foundation, "\(count) bytes")
            #expect(Base64URL.decode(foundation) == bytes, "\(count) bytes")
        }
    }

    @Test("the payload is six lines joined by \\n with no final newline")
    func payloadBytes() {
        let payload = SignedPayload(.authenticate, subject: "reg_x", challenge: "c-1", role: .pin, contextHash: "h")
        #expect(String(decoding: payload.bytes, as: UTF8.self) == "LATCHKEY-V1\nauthenticate\nreg_x\nc-1\npin\nh")
        #expect(String(decoding: payload.signed(by: .device).bytes, as: UTF8.self).hasSuffix("\ndevice\nh"))
        #expect(
            String(decoding: SignedPayload(.activate, subject: "a", challenge: "b", role: .device).bytes, as: UTF8.self)
                == "LATCHKEY-V1\nactivate\na\nb\ndevice\n")
    }

    @Test("the context hash covers length-prefixed fields, a null field as empty")
    func contextHash() {
        var data: [UInt8] = [0, 0, 0, 3] + Array("Pay".utf8) + [0, 0, 0, 0] + [0, 0, 0, 10] + Array("text/plain".utf8)
        #expect(PushContext.hash(title: "Pay", content: nil, mime: "text/plain") == Base64URL.encode(Array(SHA256.hash(data: data))))
        data = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        #expect(PushContext.hash(title: nil, content: nil, mime: nil) == Base64URL.encode(Array(SHA256.hash(data: data))))
        #expect(PushContext.hash(title: "ab", content: "c", mime: nil) != PushContext.hash(title: "a", content: "bc", mime: nil))
    }

    @Test("raw r‖s and strict DER both verify; a signature for another payload or role does not")
    func signatures() throws {
        let payload = SignedPayload(.authenticate, subject: "reg", challenge: "c", role: .device)
        let signed = try key.signature(for: payload.bytes)
        let publicKey = try #require(PublicKey(sec1: sec1))
        let raw = try #require(Signature(encoded: Array(signed.rawRepresentation)))
        let der = try #require(Signature(encoded: Array(signed.derRepresentation)))
        #expect(raw == der)
        #expect(publicKey.verifies(raw, over: payload))
        #expect(!publicKey.verifies(raw, over: payload.signed(by: .pin)))
        #expect(!publicKey.verifies(raw, over: SignedPayload(.authenticate, subject: "reg", challenge: "d", role: .device)))
    }

    @Test("DER that is not strict is refused: trailing bytes, non-minimal or negative integers, long lengths")
    func strictDER() throws {
        let der = Array(try key.signature(for: [1, 2, 3]).derRepresentation)
        #expect(Signature(encoded: der + [0]) == nil, "a byte after the SEQUENCE")
        #expect(Signature(encoded: [0x30, 0x81, UInt8(der.count - 2)] + der.dropFirst(2)) == nil, "a long-form length")
        #expect(Signature(encoded: [0x30, 0x08, 0x02, 0x02, 0x00, 0x01, 0x02, 0x02, 0x00, 0x01]) == nil, "a non-minimal integer")
        #expect(Signature(encoded: [0x30, 0x06, 0x02, 0x01, 0x81, 0x02, 0x01, 0x01]) == nil, "a negative integer")
        #expect(Signature(encoded: [0x31, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01]) == nil, "not a SEQUENCE")
        #expect(Signature(encoded: Array(repeating: 1, count: 63)) == nil)
    }

    @Test("r or s outside 1…n−1 decodes but never verifies")
    func outOfRangeScalars() throws {
        let publicKey = try #require(PublicKey(sec1: sec1))
        let zero = try #require(Signature(encoded: [0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x01]))
        #expect(!publicKey.verifies(zero, over: [1, 2, 3]))
        let n: [UInt8] = [
            0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
            0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
        ]
        #expect(!publicKey.verifies(Signature(raw: n + n), over: [1, 2, 3]))
        #expect(!publicKey.verifies(Signature(raw: [UInt8](repeating: 0, count: 64)), over: [1, 2, 3]))
    }

    @Test("an INTEGER of more than 32 significant bytes is strict DER: it decodes, and never verifies")
    func oversizedScalars() throws {
        let publicKey = try #require(PublicKey(sec1: sec1))
        let signed = Array(try key.signature(for: [1, 2, 3]).rawRepresentation)
        // r + 2^256: 33 significant bytes, minimal and positive.
        let big = try #require(Signature(encoded: [0x30, 0x26, 0x02, 0x21, 0x01] + signed.prefix(32) + [0x02, 0x01, 0x01]))
        #expect(!publicKey.verifies(big, over: [1, 2, 3]))
        // 130 bytes of r: the SEQUENCE's length takes the long form (0x81), as DER wants from 128.
        let huge = [0x30, 0x81, 0x88, 0x02, 0x81, 0x82, 0x01] + [UInt8](repeating: 0, count: 129) + [0x02, 0x01, 0x01]
        #expect(Signature(encoded: huge).map { publicKey.verifies($0, over: [1, 2, 3]) } == false)
        #expect(
            Signature(encoded: [0x30, 0x81, 0x89] + huge.dropFirst(3).dropLast(3) + [0x02, 0x81, 0x01, 0x01]) == nil,
            "a long-form length under 128")
    }
}
