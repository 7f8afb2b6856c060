import Crypto
import LatchkeyContract
import LatchkeyDevice
import Testing

@testable import LatchkeyPlatformAuthenticator

/// The simulated phone's platform authenticator: RFC 6979 signatures, deterministic output under
/// a seed, the options' algorithm order, the exclude list, synced and device-bound counters.
@Suite struct PlatformAuthenticatorTests {
    static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.utf8)
        return stride(from: 0, to: digits.count - 1, by: 2).map { index in
            func value(_ c: UInt8) -> UInt8 { c <= 57 ? c - 48 : (c | 0x20) - 87 }
            return value(digits[index]) << 4 | value(digits[index + 1])
        }
    }

    // RFC 6979 appendix A.2.5: the P-256 key and its SHA-256 signatures.
    static let x = hex("C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721")
    static let ux = hex("60FED4BA255A9D31C961EB74C6356D68C049B8923B61FA6CE669622E60F29FB6")
    static let uy = hex("7903FE1008B8BC99A41AE9E95628BC64F2F1B20C2D7E9F5177A3C294D4462299")

    @Test(
        "RFC 6979 A.2.5, P-256 with SHA-256: the key, and k, r, s for \"sample\" and \"test\"",
        arguments: [
            (
                "sample", "A6E3C57DD01ABE90086538398355DD4C3B17AA873382B0F24D6129493D8AAD60",
                "EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716",
                "F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8"
            ),
            (
                "test", "D16B6AE827F17175E040871A1C7EC3500192C4C92677336EC2537ACAEE0008E0",
                "F1ABB023518351CD71D881567B1EA663ED3EFCF6C5132B354F28D3B0B7D38367",
                "019F4113742A2B14BD25926B49C649155F267E60D3814B4C0CC84250E46F0083"
            ),
        ])
    func rfc6979(message: String, k: String, r: String, s: String) throws {
        let key = try P256.Signing.PrivateKey(rawRepresentation: Self.x)
        #expect(Array(key.publicKey.x963Representation) == [0x04] + Self.ux + Self.uy)
        let digest = Array(SHA256.hash(data: Array(message.utf8)))
        #expect(DeterministicECDSA.firstNonce(privateKey: Self.x, digest: digest) == Self.hex(k))
        let raw = try #require(DeterministicECDSA.signRaw(Array(message.utf8), privateKey: Self.x))
        #expect(raw == Self.hex(r) + Self.hex(s))
        let der = try #require(DeterministicECDSA.signDER(Array(message.utf8), privateKey: Self.x))
        let parsed = try P256.Signing.ECDSASignature(derRepresentation: der)
        #expect(Array(parsed.rawRepresentation) == raw)
        #expect(key.publicKey.isValidSignature(parsed, for: Array(message.utf8)))
    }

    @Test("every deterministic signature verifies under swift-crypto, as DER")
    func signaturesVerify() throws {
        let random = SeededRandomSource(seed: 42)
        for round in 0..<24 {
            let key = try P256.Signing.PrivateKey(rawRepresentation: random.bytes(32))
            let message = random.bytes(round * 7)
            let der = try #require(DeterministicECDSA.signDER(message, privateKey: Array(key.rawRepresentation)))
            #expect(key.publicKey.isValidSignature(try P256.Signing.ECDSASignature(derRepresentation: der), for: message))
            #expect(DeterministicECDSA.signDER(message, privateKey: Array(key.rawRepresentation)) == der)
        }
        #expect(DeterministicECDSA.signRaw([1], privateKey: [UInt8](repeating: 0, count: 32)) == nil)
        #expect(DeterministicECDSA.signRaw([1], privateKey: [UInt8](repeating: 0xFF, count: 32)) == nil)
        #expect(DeterministicECDSA.signRaw([1], privateKey: [1]) == nil)
    }

    @Test("the Montgomery product agrees with plain doubling-and-adding; a scalar times its inverse is 1")
    func scalarArithmetic() {
        let random = SeededRandomSource(seed: 6)
        let one = Scalar256(1, 0, 0, 0)
        let minusOne = Scalar256(bigEndian: Self.hex("FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632550"))
        #expect(minusOne.times(minusOne) == one, "(−1)² = 1")
        #expect(minusOne.plus(one).isZero)
        var samples = [one, Scalar256(2, 0, 0, 0), minusOne]
        for _ in 0..<30 { samples.append(Scalar256(bigEndian: random.bytes(32)).reducedOnce) }
        for (index, a) in samples.enumerated() {
            let b = samples[(index * 7 + 3) % samples.count]
            #expect(a.times(b) == a.timesByDoubling(b))
            if !a.isZero { #expect(a.times(a.inverse) == one) }
        }
    }

    @Test("DER: minimal positive integers (a leading zero only before a high bit)")
    func der() {
        let raw = [UInt8](repeating: 0, count: 31) + [0x7F] + [0x80] + [UInt8](repeating: 1, count: 31)
        #expect(DeterministicECDSA.der(raw: raw) == [0x30, 0x26, 0x02, 0x01, 0x7F, 0x02, 0x21, 0x00, 0x80] + [UInt8](repeating: 1, count: 31))
    }

    func request(algorithms: [Int64] = [-7, -8, -257], synced: Bool = false, exclude: [[UInt8]] = []) -> PlatformCreationRequest {
        PlatformCreationRequest(
            rpId: "localhost", userHandle: [1, 2, 3], algorithms: algorithms, excludeCredentials: exclude,
            clientDataJSON: Array("{}".utf8), userVerified: true, synced: synced)
    }

    @Test("under a seed every byte replays: credential ids, keys, attestation objects, signatures")
    func deterministic() throws {
        func run() throws -> [[UInt8]] {
            let authenticator = PlatformAuthenticator(random: SeededRandomSource(seed: 9))
            var out: [[UInt8]] = []
            for algorithms: [Int64] in [[-7], [-8]] {
                let creation = try authenticator.create(request(algorithms: algorithms), held: [], now: 1000)
                let assertion = try authenticator.get(creation.credential, clientDataJSON: [1], userVerified: true)
                out += [creation.attestationObject, creation.credential.privateKey, assertion.authenticatorData, assertion.signature]
            }
            return out
        }
        #expect(try run() == run())
    }

    @Test("the first offered algorithm it supports; none → noSupportedAlgorithm")
    func algorithmChoice() throws {
        let authenticator = PlatformAuthenticator(random: SeededRandomSource(seed: 1))
        #expect(try authenticator.create(request(algorithms: [-257, -8, -7]), held: [], now: 0).credential.algorithm == .eddsa)
        #expect(try authenticator.create(request(algorithms: [-35, -7, -8]), held: [], now: 0).credential.algorithm == .es256)
        #expect(throws: PlatformAuthenticatorError.noSupportedAlgorithm) {
            try authenticator.create(request(algorithms: [-257, -35]), held: [], now: 0)
        }
    }

    @Test("an excludeCredentials entry it holds for the RP is refused")
    func exclude() throws {
        let authenticator = PlatformAuthenticator(random: SeededRandomSource(seed: 1))
        let held = try authenticator.create(request(), held: [], now: 0).credential
        #expect(throws: PlatformAuthenticatorError.excluded) {
            try authenticator.create(request(exclude: [[0], held.id]), held: [held], now: 0)
        }
        var elsewhere = held
        elsewhere.rpId = "example.com"
        #expect(throws: Never.self) { try authenticator.create(request(exclude: [held.id]), held: [elsewhere], now: 0) }
    }

    @Test("synced: BE and BS set, counter always 0; device-bound: BE and BS clear, counter from 1 and up")
    func counters() throws {
        let authenticator = PlatformAuthenticator(random: SeededRandomSource(seed: 3))
        let synced = try authenticator.create(request(synced: true), held: [], now: 0)
        let syncedData = try AuthenticatorData(bytes: synced.authenticatorData)
        #expect(syncedData.flags.contains([.userPresent, .userVerified, .backupEligible, .backedUp, .attestedCredentialData]))
        #expect(syncedData.signCount == 0)
        let syncedGet = try authenticator.get(synced.credential, clientDataJSON: [], userVerified: false)
        let syncedGetData = try AuthenticatorData(bytes: syncedGet.authenticatorData)
        #expect(syncedGetData.signCount == 0 && syncedGetData.flags == [.userPresent, .backupEligible, .backedUp])

        let bound = try authenticator.create(request(synced: false), held: [], now: 0)
        let boundData = try AuthenticatorData(bytes: bound.authenticatorData)
        #expect(boundData.signCount == 1 && !boundData.flags.contains(.backupEligible) && !boundData.flags.contains(.backedUp))
        let first = try authenticator.get(bound.credential, clientDataJSON: [], userVerified: true)
        let second = try authenticator.get(first.credential, clientDataJSON: [], userVerified: true)
        #expect(try AuthenticatorData(bytes: first.authenticatorData).signCount == 2)
        #expect(try AuthenticatorData(bytes: second.authenticatorData).signCount == 3)
        #expect(second.credential.signCount == 3)
    }

    @Test("a get uses the first allowCredentials entry held for the RP, else the newest for the RP; none → nil")
    func credentialForGet() throws {
        let authenticator = PlatformAuthenticator(random: SeededRandomSource(seed: 12))
        let older = try authenticator.create(request(), held: [], now: 10).credential
        let newer = try authenticator.create(request(), held: [], now: 20).credential
        var foreign = try authenticator.create(request(), held: [], now: 30).credential
        foreign.rpId = "example.com"
        let held = [older, newer, foreign]
        #expect(PlatformAuthenticator.credentialForGet(held: held, rpId: "localhost", allowCredentials: []) == newer)
        #expect(PlatformAuthenticator.credentialForGet(held: held, rpId: "localhost", allowCredentials: [[9], older.id, newer.id]) == older)
        #expect(PlatformAuthenticator.credentialForGet(held: held, rpId: "localhost", allowCredentials: [foreign.id]) == nil)
        #expect(PlatformAuthenticator.credentialForGet(held: held, rpId: "other", allowCredentials: []) == nil)
    }

    @Test("the attestation object is fmt none with an empty attStmt, and the key is the credential's")
    func attestation() throws {
        let creation = try PlatformAuthenticator(random: SeededRandomSource(seed: 5)).create(request(), held: [], now: 77)
        let object = try AttestationObject(bytes: creation.attestationObject)
        #expect(object.format == "none" && object.statement.isEmpty)
        let data = try AuthenticatorData(bytes: object.authData)
        #expect(data.attestedCredential?.credentialId == creation.credential.id)
        #expect(data.attestedCredential?.credentialId.count == 20)
        #expect(data.attestedCredential?.publicKeyBytes == creation.publicKey)
        #expect(creation.credential.publicKey?.encoded == creation.publicKey)
        #expect(creation.credential.createdAt == 77)
    }
}
