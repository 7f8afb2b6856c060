import Crypto
import Testing

@testable import LatchkeyContract
@testable import LatchkeyRelyingParty

/// Stored passkey keys are read once and then served as read: the same key for the same bytes, none
/// for bytes that are no COSE key.
@Suite struct PasskeyKeysTests {
    @Test func aKeyIsReadOnceAndServedAsRead() throws {
        let keys = PasskeyKeys()
        let signer = P256.Signing.PrivateKey()
        let encoded = COSEKey(signer.publicKey).encoded
        let message = Array("signed".utf8)
        let signature = Array(try signer.signature(for: message).derRepresentation)
        for _ in 0..<2 {
            let key = try #require(keys.key(encoded))
            #expect(key.algorithm == .es256 && key.encoded == encoded)
            #expect(key.verify(signature: signature, over: message))
        }
        #expect(keys.key([0xA1, 0x01, 0x02]) == nil)
        #expect(keys.key([]) == nil)
    }
}
