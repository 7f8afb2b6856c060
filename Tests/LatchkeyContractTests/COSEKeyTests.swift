import Crypto
import Testing
import _CryptoExtras

@testable import LatchkeyContract

/// COSE public keys: ES256, EdDSA and RS256 read, verify and re-encode; every malformed key is
/// `malformed`, an algorithm outside the three `unsupportedAlgorithm`.
@Suite struct COSEKeyTests {
    static let rsa = try? _RSA.Signing.PrivateKey(keySize: .bits2048)

    func map(_ entries: [(Int64, CBOR)]) -> CBOR { .map(entries.map { CBORMapEntry(.int($0.0), $0.1) }) }

    func error(_ cbor: CBOR) -> COSEKeyError? {
        do {
            _ = try COSEKey(cbor: cbor)
            return nil
        } catch {
            return error
        }
    }

    func isMalformed(_ cbor: CBOR) -> Bool {
        if case .malformed? = error(cbor) { return true }
        return false
    }

    @Test("ES256: a P-256 key reads from its COSE map, re-encodes canonically and verifies DER signatures only")
    func es256() throws {
        let privateKey = P256.Signing.PrivateKey()
        let key = COSEKey(privateKey.publicKey)
        #expect(key.algorithm == .es256)
        let decoded = try CBORDecoder.decode(key.encoded)
        #expect(decoded.mapValue?.map(\.key) == [.int(1), .int(3), .int(-1), .int(-2), .int(-3)])
        let read = try COSEKey(encoded: key.encoded)
        #expect(read.encoded == key.encoded)
        let message = Array("hello".utf8)
        let signature = try privateKey.signature(for: message)
        #expect(read.verify(signature: Array(signature.derRepresentation), over: message))
        #expect(!read.verify(signature: Array(signature.rawRepresentation), over: message), "raw r‖s is not DER")
        #expect(!read.verify(signature: Array(signature.derRepresentation), over: message + [0]))
        #expect(!read.verify(signature: Array(signature.derRepresentation) + [0], over: message), "bytes after the DER")
    }

    @Test("EdDSA: an Ed25519 key reads and verifies 64-byte signatures")
    func eddsa() throws {
        let privateKey = Curve25519.Signing.PrivateKey()
        let key = COSEKey(privateKey.publicKey)
        let read = try COSEKey(encoded: key.encoded)
        #expect(read.algorithm == .eddsa && read.encoded == key.encoded)
        let message = Array("hello".utf8)
        let signature = Array(try privateKey.signature(for: message))
        #expect(read.verify(signature: signature, over: message))
        #expect(!read.verify(signature: signature + [0], over: message))
        #expect(!read.verify(signature: signature, over: message + [0]))
    }

    @Test("Ed25519 signing is deterministic under swift-crypto here (transcripts replay)")
    func eddsaDeterministic() throws {
        let privateKey = try Curve25519.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 7, count: 32))
        let message = Array("replay".utf8)
        #expect(Array(try privateKey.signature(for: message)) == Array(try privateKey.signature(for: message)))
    }

    @Test("RS256: a 2048-bit key reads from n and e and verifies PKCS #1 v1.5 only")
    func rs256() throws {
        let privateKey = try #require(Self.rsa)
        let key = try COSEKey(privateKey.publicKey)
        let read = try COSEKey(encoded: key.encoded)
        #expect(read.algorithm == .rs256 && read.encoded == key.encoded)
        let message = Array("hello".utf8)
        let pkcs1 = Array(try privateKey.signature(for: message, padding: .insecurePKCS1v1_5).rawRepresentation)
        let pss = Array(try privateKey.signature(for: message, padding: .PSS).rawRepresentation)
        #expect(read.verify(signature: pkcs1, over: message))
        #expect(!read.verify(signature: pss, over: message))
        #expect(!read.verify(signature: pkcs1, over: message + [0]))
        #expect(!read.verify(signature: [], over: message))
    }

    @Test("an alg outside the three is unsupportedAlgorithm; a missing or non-integer alg is malformed")
    func algorithms() {
        let coordinate = CBOR.bytes([UInt8](repeating: 1, count: 48))
        let es384 = map([(1, .int(2)), (3, .int(-35)), (-1, .int(2)), (-2, coordinate), (-3, coordinate)])
        #expect(error(es384) == .unsupportedAlgorithm)
        #expect(error(map([(1, .int(2)), (3, .int(7))])) == .unsupportedAlgorithm)
        #expect(error(map([(1, .int(2)), (3, .negative(.max))])) == .unsupportedAlgorithm)
        #expect(isMalformed(map([(1, .int(2))])))
        #expect(isMalformed(map([(1, .int(2)), (3, .text("ES256"))])))
        #expect(isMalformed(.array([])))
        #expect(isMalformed(.bytes([])))
    }

    @Test("malformed ES256 keys: wrong kty or crv, short or missing coordinates, a point off the curve")
    func malformedES256() throws {
        let point = Array(P256.Signing.PrivateKey().publicKey.x963Representation)
        let x = CBOR.bytes(Array(point[1..<33]))
        let y = CBOR.bytes(Array(point[33..<65]))
        let good: [(Int64, CBOR)] = [(1, .int(2)), (3, .int(-7)), (-1, .int(1)), (-2, x), (-3, y)]
        #expect(error(map(good)) == nil)
        func with(_ label: Int64, _ value: CBOR?) -> CBOR {
            map(good.compactMap { $0.0 == label ? value.map { v in (label, v) } : $0 })
        }
        #expect(isMalformed(with(1, .int(1))), "OKP kty")
        #expect(isMalformed(with(1, .text("EC2"))))
        #expect(isMalformed(with(1, nil)))
        #expect(isMalformed(with(-1, .int(2))), "P-384")
        #expect(isMalformed(with(-2, .bytes(Array(point[1..<32])))))
        #expect(isMalformed(with(-3, nil)))
        #expect(isMalformed(with(-3, .text("y"))))
        var offCurve = Array(point[33..<65])
        offCurve[31] ^= 1
        #expect(isMalformed(with(-3, .bytes(offCurve))))
        #expect(isMalformed(with(-2, .bytes([UInt8](repeating: 0xFF, count: 32)))), "x ≥ p")
    }

    @Test("malformed EdDSA and RS256 keys: wrong kty or crv, a 31-byte key, a 1024-bit modulus, no exponent")
    func malformedOthers() throws {
        let x = CBOR.bytes(Array(Curve25519.Signing.PrivateKey().publicKey.rawRepresentation))
        #expect(error(map([(1, .int(1)), (3, .int(-8)), (-1, .int(6)), (-2, x)])) == nil)
        #expect(isMalformed(map([(1, .int(2)), (3, .int(-8)), (-1, .int(6)), (-2, x)])))
        #expect(isMalformed(map([(1, .int(1)), (3, .int(-8)), (-1, .int(4)), (-2, x)])), "X25519")
        #expect(isMalformed(map([(1, .int(1)), (3, .int(-8)), (-1, .int(6)), (-2, .bytes([UInt8](repeating: 1, count: 31)))])))

        let privateKey = try #require(Self.rsa)
        let primitives = try privateKey.publicKey.getKeyPrimitives()
        let n = CBOR.bytes(Array(primitives.modulus))
        let e = CBOR.bytes(Array(primitives.publicExponent))
        #expect(error(map([(1, .int(3)), (3, .int(-257)), (-1, n), (-2, e)])) == nil)
        #expect(isMalformed(map([(1, .int(2)), (3, .int(-257)), (-1, n), (-2, e)])))
        #expect(isMalformed(map([(1, .int(3)), (3, .int(-257)), (-1, n)])))
        #expect(isMalformed(map([(1, .int(3)), (3, .int(-257)), (-1, .bytes(Array(primitives.modulus.prefix(128)))), (-2, e)])), "1024 bits")
        #expect(
            isMalformed(map([(1, .int(3)), (3, .int(-257)), (-1, .bytes([0, 0] + Array(primitives.modulus.prefix(255)))), (-2, e)])),
            "2040 bits behind leading zeros")
        #expect(isMalformed(map([(1, .int(3)), (3, .int(-257)), (-1, n), (-2, .bytes([]))])))
    }

    @Test("bytes that are not one strict CBOR item are malformed; the fuzz entry point takes anything")
    func encodedErrors() {
        #expect(error(.bytes([0xA1, 0x01])) != .unsupportedAlgorithm)
        #expect(throws: COSEKeyError.malformed("not one CBOR item")) { try COSEKey(encoded: [0xA1, 0x01]) }
        COSEKey.fuzz([])
        COSEKey.fuzz(COSEKey(P256.Signing.PrivateKey().publicKey).encoded)
    }
}
