import Crypto
import _CryptoExtras

/// The COSE algorithms a passkey may use, by their registered identifiers.
public enum COSEAlgorithm: Int64, Sendable, CaseIterable {
    /// ECDSA over P-256 with SHA-256; signatures in DER.
    case es256 = -7
    /// Ed25519; 64-byte signatures.
    case eddsa = -8
    /// RSASSA-PKCS1-v1_5 with SHA-256, a modulus of 2048 bits or more.
    case rs256 = -257
}

/// Why a COSE key was refused.
public enum COSEKeyError: Error, Sendable, Equatable {
    /// `alg` is an integer naming none of the three algorithms.
    case unsupportedAlgorithm
    /// Not a well-formed key of its algorithm (the text says what, quoting nothing).
    case malformed(String)
}

extension COSEKeyError: CustomStringConvertible {
    /// What was wrong, as human text.
    public var description: String {
        switch self {
        case .unsupportedAlgorithm: "the algorithm is not ES256, EdDSA or RS256"
        case .malformed(let why): why
        }
    }
}

/// A credential public key in COSE form (RFC 9053) for ES256, EdDSA or RS256, checked when read
/// and kept parsed for the signatures it verifies.
public struct COSEKey: Sendable {
    public let algorithm: COSEAlgorithm
    /// The canonical CBOR map of the members that define the key (`kty`, `alg`, `crv`, `x`, `y` /
    /// `n`, `e`): what the store keeps and the authenticator writes.
    public let encoded: [UInt8]
    /// The same map as a CBOR value (what attested credential data carries).
    public let value: CBOR
    private let key: Parsed

    private enum Parsed: Sendable {
        case es256(P256.Signing.PublicKey)
        case eddsa(Curve25519.Signing.PublicKey)
        case rs256(_RSA.Signing.PublicKey)
    }

    // COSE labels and values (RFC 9052 §7, RFC 9053 §7).
    private enum Label {
        static let kty: Int64 = 1, alg: Int64 = 3, crv: Int64 = -1, x: Int64 = -2, y: Int64 = -3
        static let n: Int64 = -1, e: Int64 = -2
    }
    private enum KeyType {
        static let okp: Int64 = 1, ec2: Int64 = 2, rsa: Int64 = 3
    }
    private enum Curve {
        static let p256: Int64 = 1, ed25519: Int64 = 6
    }

    /// Reads a COSE key map.
    /// - Throws: `.unsupportedAlgorithm` when `alg` is an integer outside the three;
    ///   `.malformed` for anything else wrong (not a map, a member missing or of another type,
    ///   `kty`/`crv` not those of the algorithm, a point off the curve, a short modulus).
    public init(cbor: CBOR) throws(COSEKeyError) {
        guard cbor.mapValue != nil else { throw .malformed("not a map") }
        guard let algValue = cbor[Label.alg] else { throw .malformed("no alg") }
        switch algValue {
        case .unsigned, .negative: break
        default: throw .malformed("alg is not an integer")
        }
        guard let alg = algValue.int64Value, let algorithm = COSEAlgorithm(rawValue: alg) else { throw .unsupportedAlgorithm }
        try self.init(algorithm: algorithm, members: cbor)
    }

    private init(key: Parsed, algorithm: COSEAlgorithm, value: CBOR) {
        self.key = key
        self.algorithm = algorithm
        self.value = value
        encoded = value.encoded
    }

    private init(algorithm: COSEAlgorithm, members cbor: CBOR) throws(COSEKeyError) {
        func integer(_ label: Int64, _ name: String) throws(COSEKeyError) -> Int64 {
            guard let value = cbor[label]?.int64Value else { throw .malformed("\(name) missing or not an integer") }
            return value
        }
        func bytes(_ label: Int64, _ name: String) throws(COSEKeyError) -> [UInt8] {
            guard let value = cbor[label]?.bytesValue else { throw .malformed("\(name) missing or not a byte string") }
            return value
        }
        switch algorithm {
        case .es256:
            guard try integer(Label.kty, "kty") == KeyType.ec2 else { throw .malformed("kty is not EC2") }
            guard try integer(Label.crv, "crv") == Curve.p256 else { throw .malformed("crv is not P-256") }
            let x = try bytes(Label.x, "x")
            let y = try bytes(Label.y, "y")
            guard x.count == 32, y.count == 32 else { throw .malformed("a coordinate is not 32 bytes") }
            guard let point = try? P256.Signing.PublicKey(x963Representation: [0x04] + x + y) else {
                throw .malformed("the point is not on P-256")
            }
            self.init(point)
        case .eddsa:
            guard try integer(Label.kty, "kty") == KeyType.okp else { throw .malformed("kty is not OKP") }
            guard try integer(Label.crv, "crv") == Curve.ed25519 else { throw .malformed("crv is not Ed25519") }
            let x = try bytes(Label.x, "x")
            guard x.count == 32, let point = try? Curve25519.Signing.PublicKey(rawRepresentation: x) else {
                throw .malformed("x is not a 32-byte Ed25519 key")
            }
            self.init(point)
        case .rs256:
            guard try integer(Label.kty, "kty") == KeyType.rsa else { throw .malformed("kty is not RSA") }
            let n = try bytes(Label.n, "n")
            let e = try bytes(Label.e, "e")
            let modulus = n.drop { $0 == 0 }
            guard let top = modulus.first, (modulus.count - 1) * 8 + (8 - top.leadingZeroBitCount) >= 2048 else {
                throw .malformed("the modulus is shorter than 2048 bits")
            }
            guard modulus.count <= 2048, !e.isEmpty, e.count <= 8,
                let rsa = try? _RSA.Signing.PublicKey(n: n, e: e)
            else { throw .malformed("not a usable RSA key") }
            self.init(key: .rs256(rsa), algorithm: .rs256, value: Self.rsaMap(n: n, e: e))
        }
    }

    /// Decodes and reads a COSE key's bytes (exactly one CBOR item).
    /// - Throws: as `init(cbor:)`; bytes that are not one strict CBOR item are `.malformed`.
    public init(encoded bytes: [UInt8]) throws(COSEKeyError) {
        let value: CBOR
        do { value = try CBORDecoder.decode(bytes) } catch { throw .malformed("not one CBOR item") }
        try self.init(cbor: value)
    }

    /// An ES256 key.
    public init(_ key: P256.Signing.PublicKey) {
        let point = Array(key.x963Representation)
        self.init(
            key: .es256(key), algorithm: .es256,
            value: CBOR.map([
                CBORMapEntry(.int(Label.kty), .int(KeyType.ec2)), CBORMapEntry(.int(Label.alg), .int(COSEAlgorithm.es256.rawValue)),
                CBORMapEntry(.int(Label.crv), .int(Curve.p256)), CBORMapEntry(.int(Label.x), .bytes(Array(point[1..<33]))),
                CBORMapEntry(.int(Label.y), .bytes(Array(point[33..<65]))),
            ]))
    }

    /// An EdDSA (Ed25519) key.
    public init(_ key: Curve25519.Signing.PublicKey) {
        self.init(
            key: .eddsa(key), algorithm: .eddsa,
            value: CBOR.map([
                CBORMapEntry(.int(Label.kty), .int(KeyType.okp)), CBORMapEntry(.int(Label.alg), .int(COSEAlgorithm.eddsa.rawValue)),
                CBORMapEntry(.int(Label.crv), .int(Curve.ed25519)), CBORMapEntry(.int(Label.x), .bytes(Array(key.rawRepresentation))),
            ]))
    }

    /// An RS256 key.
    /// - Throws: `.malformed` when swift-crypto cannot give the key's numbers.
    public init(_ key: _RSA.Signing.PublicKey) throws(COSEKeyError) {
        guard let primitives = try? key.getKeyPrimitives() else { throw .malformed("no RSA primitives") }
        self.init(
            key: .rs256(key), algorithm: .rs256,
            value: Self.rsaMap(n: Array(primitives.modulus), e: Array(primitives.publicExponent)))
    }

    private static func rsaMap(n: [UInt8], e: [UInt8]) -> CBOR {
        CBOR.map([
            CBORMapEntry(.int(Label.kty), .int(KeyType.rsa)), CBORMapEntry(.int(Label.alg), .int(COSEAlgorithm.rs256.rawValue)),
            CBORMapEntry(.int(Label.n), .bytes(n)), CBORMapEntry(.int(Label.e), .bytes(e)),
        ])
    }

    /// Whether `signature` is this key's over `message`: ES256 as DER ECDSA-Sig-Value over
    /// SHA-256, EdDSA as 64 raw bytes, RS256 as PKCS #1 v1.5 over SHA-256.
    public func verify(signature: [UInt8], over message: [UInt8]) -> Bool {
        switch key {
        case .es256(let key):
            guard let raw = ECDSASignatureDER.rawP256(signature),
                let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: raw)
            else { return false }
            // SHA-256 through its own methods (the generic `isValidSignature(_:for: some DataProtocol)` hashes through the
            // unspecialised `HashFunction.hash`).
            var digest = SHA256()
            message.withUnsafeBytes { digest.update(bufferPointer: $0) }
            return key.isValidSignature(ecdsa, for: digest.finalize())
        case .eddsa(let key):
            guard signature.count == 64 else { return false }
            return key.isValidSignature(signature, for: message)
        case .rs256(let key):
            return key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: message,
                padding: .insecurePKCS1v1_5)
        }
    }

    /// A fuzz entry point: reads any bytes as a DER ECDSA signature, and as a COSE key that verifies a signature; never traps.
    public static func fuzz(_ bytes: [UInt8]) {
        _ = ECDSASignatureDER.rawP256(Array(bytes.prefix(ECDSASignatureDER.maximumLength + 1)))
        guard let key = try? COSEKey(encoded: bytes) else { return }
        _ = key.verify(signature: Array(bytes.prefix(72)), over: bytes)
    }
}
