import Crypto
import Testing

@testable import LatchkeyContract

/// Authenticator data is exactly what its flags announce; an attestation object is exactly its
/// three members.
@Suite struct AuthenticatorDataTests {
    let hash = Array(SHA256.hash(data: Array("localhost".utf8)))
    let key = COSEKey(P256.Signing.PrivateKey().publicKey)

    var attested: AttestedCredentialData {
        AttestedCredentialData(aaguid: Array(1...16), credentialId: [9, 8, 7], publicKey: key)
    }

    func error(_ bytes: [UInt8]) -> AuthenticatorDataError? {
        do {
            _ = try AuthenticatorData(bytes: bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test("37 bytes with no AT or ED read: hash, flags, big-endian counter")
    func minimal() throws {
        let bytes = hash + [0x05, 0x01, 0x02, 0x03, 0x04]
        let data = try AuthenticatorData(bytes: bytes)
        #expect(data.rpIdHash == hash)
        #expect(data.flags == [.userPresent, .userVerified])
        #expect(data.signCount == 0x0102_0304)
        #expect(data.attestedCredential == nil && data.extensions == nil)
        #expect(data.encoded == bytes)
    }

    @Test("attested credential data and extensions round-trip; the key is one CBOR item, taken as read")
    func attestedAndExtensions() throws {
        let extensions = CBOR.map([CBORMapEntry(.text("credProtect"), .unsigned(2))])
        let data = AuthenticatorData(
            rpIdHash: hash, flags: [.userPresent, .backupEligible, .backedUp], signCount: 0,
            attestedCredential: attested, extensions: extensions)
        #expect(data.flags.contains([.attestedCredentialData, .extensionData]))
        let read = try AuthenticatorData(bytes: data.encoded)
        #expect(read == data)
        #expect(read.attestedCredential?.publicKeyBytes == key.encoded)
        #expect(read.attestedCredential?.aaguidString == "01020304-0506-0708-090a-0b0c0d0e0f10")
        #expect(AttestedCredentialData.uuidString([]) == "00000000-0000-0000-0000-000000000000")
        let withoutExtensions = AuthenticatorData(rpIdHash: hash, flags: [.userPresent], signCount: 1, attestedCredential: attested)
        #expect(try AuthenticatorData(bytes: withoutExtensions.encoded) == withoutExtensions)
    }

    @Test("fewer than 37 bytes, and attested data cut anywhere, are refused")
    func truncated() {
        #expect(error([]) == .tooShort)
        #expect(error(hash + [0x01, 0, 0, 0]) == .tooShort)
        let whole = AuthenticatorData(rpIdHash: hash, flags: [.userPresent], signCount: 1, attestedCredential: attested).encoded
        for cut in 37..<whole.count {
            #expect(error(Array(whole.prefix(cut))) != nil, "cut at \(cut)")
        }
        #expect(error(Array(whole.prefix(37 + 17))) == .truncated)
        #expect(error(Array(whole.prefix(37 + 18 + 2))) == .truncated, "the credential id ends early")
    }

    @Test("a credential id length beyond the data is refused, never read past")
    func hugeCredentialIdLength() {
        let bytes = hash + [0x41, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 16) + [0xFF, 0xFF, 0x01, 0x02]
        #expect(error(bytes) == .truncated)
    }

    @Test("data that is not what the flags announce is refused: AT without data, data without ED, ED without a map")
    func flagMismatch() throws {
        let plain = hash + [0x01, 0, 0, 0, 1]
        #expect(error(plain + [0x00]) == .trailingBytes, "a byte left over without ED")
        var atWithout = plain
        atWithout[32] = 0x41
        #expect(error(atWithout) == .truncated, "AT without attested data")
        var edWithout = plain
        edWithout[32] = 0x81
        #expect(error(edWithout) == .extensionsMissing)
        #expect(error(edWithout + [0x01]) == .extensionsNotAMap)
        #expect(error(edWithout + [0xA0, 0x00]) == .extensions(.trailingBytes))
        #expect(error(edWithout + [0xBF, 0xFF]) == .extensions(.indefiniteLength))
        #expect(error(edWithout + [0xA0]) == nil)
        // Attested data followed by a map while ED is clear: the map is left over.
        let attestedOnly = AuthenticatorData(rpIdHash: hash, flags: [.userPresent], signCount: 1, attestedCredential: attested).encoded
        #expect(error(attestedOnly + [0xA0]) == .trailingBytes)
        // A credential public key that is not strict CBOR.
        let badKey = hash + [0x41, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 16) + [0x00, 0x01, 0x07, 0xC1, 0x00]
        #expect(error(badKey) == .credentialPublicKey(.tag))
    }

    @Test("attestation objects: exactly fmt, attStmt and authData, nothing after")
    func attestationObject() throws {
        let object = AttestationObject(format: "none", statement: [], authData: hash + [0x01, 0, 0, 0, 0])
        #expect(try AttestationObject(bytes: object.encoded) == object)
        func refused(_ bytes: [UInt8]) -> AttestationObjectError? {
            do {
                _ = try AttestationObject(bytes: bytes)
                return nil
            } catch {
                return error
            }
        }
        #expect(refused(object.encoded + [0x00]) == .cbor(.trailingBytes))
        #expect(refused(CBOR.array([]).encoded) == .notAMap)
        let fmt = CBORMapEntry(.text("fmt"), .text("none"))
        let stmt = CBORMapEntry(.text("attStmt"), .map([]))
        let auth = CBORMapEntry(.text("authData"), .bytes([1]))
        #expect(refused(CBOR.map([fmt, stmt]).encoded) == .members)
        #expect(refused(CBOR.map([fmt, stmt, auth, CBORMapEntry(.text("x"), .null)]).encoded) == .members)
        #expect(refused(CBOR.map([CBORMapEntry(.text("fmt"), .bytes([])), stmt, auth]).encoded) == .members)
        #expect(refused(CBOR.map([fmt, CBORMapEntry(.text("attStmt"), .array([])), auth]).encoded) == .members)
        #expect(refused(CBOR.map([fmt, stmt, CBORMapEntry(.text("authData"), .text("x"))]).encoded) == .members)
        #expect(refused(CBOR.map([fmt, stmt, CBORMapEntry(.text("authdata"), .bytes([]))]).encoded) == .members)
        #expect(refused([0xA3, 0x63, 0x66, 0x6D, 0x74]) != nil)
        AttestationObject.fuzz(object.encoded)
        AuthenticatorData.fuzz([])
    }
}
