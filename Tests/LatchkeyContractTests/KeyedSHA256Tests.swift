import Crypto
import Testing

@testable import LatchkeyContract

/// The keyed-once HMAC-SHA256 against swift-crypto's `HMAC<SHA256>` and RFC 4231's vectors.
@Suite struct KeyedSHA256Tests {
    @Test("the same code as HMAC<SHA256> for keys shorter than, as long as and longer than a block")
    func sameAsSwiftCrypto() {
        for keyLength in [0, 1, 20, 32, 63, 64, 65, 131] {
            let key = (0..<keyLength).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let keyed = KeyedSHA256(key: key)
            for messageLength in [0, 1, 8, 55, 56, 64, 200] {
                let message = (0..<messageLength).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ keyLength) }
                let expected = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)).byteArray
                #expect(keyed.code(message) == expected, "key \(keyLength) bytes, message \(messageLength) bytes")
            }
        }
    }

    @Test("RFC 4231 test cases 2 and 6 (a short key; a key longer than a block)")
    func rfc4231() {
        let case2 = KeyedSHA256(key: Array("Jefe".utf8)).code(Array("what do ya want for nothing?".utf8))
        #expect(Self.hex(case2) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        let case6 = KeyedSHA256(key: [UInt8](repeating: 0xAA, count: 131))
            .code(Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))
        #expect(Self.hex(case6) == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test("a copy answers alike, and a code leaves the keyed state as it was")
    func stateless() {
        let keyed = KeyedSHA256(key: Array("k".utf8))
        let first = keyed.code(Array("a".utf8))
        _ = keyed.code(Array("something else".utf8))
        let copy = keyed
        #expect(keyed.code(Array("a".utf8)) == first)
        #expect(copy.code(Array("a".utf8)) == first)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}
