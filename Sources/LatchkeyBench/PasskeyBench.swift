// Passkey sign-ins through the whole server (JSON in and out, dispatch, CBOR, the Relying
// Party's checks, the store) beside swift-crypto's bare verification of the same signature.
import Crypto
import Foundation
import LatchkeyContract
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyServer
import LatchkeyStore
import _CryptoExtras

/// An outside authenticator's key, for one of the three algorithms.
struct BenchKey {
    let algorithm: COSEAlgorithm
    let cose: COSEKey
    let sign: ([UInt8]) throws -> [UInt8]
    let verify: ([UInt8], [UInt8]) -> Bool

    static func make(_ algorithm: COSEAlgorithm) throws -> BenchKey {
        switch algorithm {
        case .es256:
            let key = P256.Signing.PrivateKey()
            return BenchKey(
                algorithm: algorithm, cose: COSEKey(key.publicKey), sign: { Array(try key.signature(for: $0).derRepresentation) },
                verify: { data, signature in
                    (try? P256.Signing.ECDSASignature(derRepresentation: signature))
                        .map { key.publicKey.isValidSignature($0, for: data) } ?? false
                })
        case .eddsa:
            let key = Curve25519.Signing.PrivateKey()
            return BenchKey(
                algorithm: algorithm, cose: COSEKey(key.publicKey), sign: { Array(try key.signature(for: $0)) },
                verify: { key.publicKey.isValidSignature($1, for: $0) })
        case .rs256:
            let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            return BenchKey(
                algorithm: algorithm, cose: try COSEKey(key.publicKey),
                sign: { Array(try key.signature(for: $0, padding: .insecurePKCS1v1_5).rawRepresentation) },
                verify: { data, signature in
                    key.publicKey.isValidSignature(
                        _RSA.Signing.RSASignature(rawRepresentation: signature), for: data,
                        padding: .insecurePKCS1v1_5)
                })
        }
    }
}

/// One server in this process, called with request bytes as a client would send them.
struct InProcessServer {
    let server: LatchkeyServer
    var next: Int64 = 1

    init(storePath: String) {
        let environment = Environment(clock: SystemClock(), random: SystemRandomSource(), openStore: { try SQLiteStore.file(at: storePath) })
        server = LatchkeyServer(environment: environment, options: ServerOptions(version: "bench"))
    }

    /// Parses `request` (JSON bytes), dispatches it and writes the answer as JSON bytes; answers the result.
    mutating func call(_ method: String, _ params: JSON) throws -> JSON {
        let bytes = JSONSerializer.serialize(
            .object(
                JSONObject([
                    ("jsonrpc", "2.0"), ("id", .int(next)), ("method", .string(method)), ("params", params),
                ])))
        next += 1
        return try call(bytes: bytes)
    }

    func call(bytes: [UInt8]) throws -> JSON {
        let parsed = try JSONParser.parse(bytes)
        let request = RPCRequest(id: .int(1), method: parsed["method"]?.stringValue ?? "", params: parsed["params"])
        switch server.handle(request, emit: { _ in }) {
        case .success(let result):
            _ = JSONSerializer.serialize(result)
            return result
        case .failure(let error):
            throw BenchFailure(description: "\(request.method): \(error.message)")
        }
    }
}

struct BenchFailure: Error, CustomStringConvertible { let description: String }

/// `{"type", "challenge", "origin", "crossOrigin"}` as a browser writes it.
func benchClientData(_ type: String, _ challenge: String) -> [UInt8] {
    JSONSerializer.serialize(
        .object(
            JSONObject([
                ("type", .string(type)), ("challenge", .string(challenge)), ("origin", "https://localhost"), ("crossOrigin", false),
            ])))
}

/// A `PublicKeyCredential` as a browser's `toJSON()` writes it, around its `response`.
func benchCredential(_ id: String, _ response: JSON) -> JSON {
    ["id": .string(id), "rawId": .string(id), "type": "public-key", "clientExtensionResults": [:], "response": response]
}

func passkeyBenchmarks(directory: URL, count: Int) throws {
    report("== passkeys: sign-ins through the whole server (JSON, dispatch, CBOR, checks, SQLite) on a file store")
    let rpIdHash = SHA256.hash(data: Array("localhost".utf8)).byteArray
    for algorithm in COSEAlgorithm.allCases {
        var server = InProcessServer(storePath: directory.appendingPathComponent("passkeys-\(algorithm.rawValue).sqlite").path)
        let key = try BenchKey.make(algorithm)
        let credentialId = Array(SHA256.hash(data: Array("bench-\(algorithm.rawValue)".utf8)).byteArray.prefix(16))
        let id = Base64URL.encode(credentialId)
        _ = try server.call("admin/createUser", ["userId": "alice", "email": "alice@example.com", "password": "correct horse"])
        let session = try server.call("user/login", ["userId": "alice", "password": "correct horse"])["sessionId"] ?? .null
        // Registration: attestation none, the key's COSE form in the attested credential data.
        let creation = try server.call("passkey/creationOptions", ["sessionId": session])
        let createData = benchClientData("webauthn.create", creation["publicKey"]?["challenge"]?.stringValue ?? "")
        let authData = AuthenticatorData(
            rpIdHash: rpIdHash, flags: [.userPresent, .userVerified], signCount: 0,
            attestedCredential: AttestedCredentialData(aaguid: [UInt8](repeating: 0, count: 16), credentialId: credentialId, publicKey: key.cose))
        let attestation = AttestationObject(format: "none", statement: [], authData: authData.encoded).encoded
        _ = try server.call(
            "passkey/create",
            [
                "ceremonyId": creation["ceremonyId"] ?? .null,
                "credential": benchCredential(
                    id, ["clientDataJSON": .string(Base64URL.encode(createData)), "attestationObject": .string(Base64URL.encode(attestation))]),
            ])
        var counter: UInt32 = 0
        /// One sign-in: the options (timed in `optionsTime`), then the client's signature (not
        /// timed), then the login request's bytes through the server (timed in `loginTime`).
        var loginTime = 0.0
        var optionsTime = 0.0
        var verifyTime = 0.0
        for _ in 0..<count {
            let t0 = DispatchTime.now().uptimeNanoseconds
            let options = try server.call("passkey/requestOptions", ["email": "alice@example.com"])
            let t1 = DispatchTime.now().uptimeNanoseconds
            counter += 1
            let data = AuthenticatorData(rpIdHash: rpIdHash, flags: [.userPresent, .userVerified], signCount: counter).encoded
            let clientData = benchClientData("webauthn.get", options["publicKey"]?["challenge"]?.stringValue ?? "")
            let signed = data + SHA256.hash(data: clientData).byteArray
            let signature = try key.sign(signed)
            let request = JSONSerializer.serialize([
                "jsonrpc": "2.0", "id": 1, "method": "passkey/login",
                "params": [
                    "ceremonyId": options["ceremonyId"] ?? .null,
                    "credential": benchCredential(
                        id,
                        [
                            "clientDataJSON": .string(Base64URL.encode(clientData)), "authenticatorData": .string(Base64URL.encode(data)),
                            "signature": .string(Base64URL.encode(signature)),
                        ]),
                ],
            ])
            let t2 = DispatchTime.now().uptimeNanoseconds
            _ = try server.call(bytes: request)
            let t3 = DispatchTime.now().uptimeNanoseconds
            guard key.verify(signed, signature) else { throw BenchFailure(description: "the bare verification failed") }
            let t4 = DispatchTime.now().uptimeNanoseconds
            optionsTime += Double(t1 - t0)
            loginTime += Double(t3 - t2)
            verifyTime += Double(t4 - t3)
        }
        let login = loginTime / Double(count) / 1e9
        let verify = verifyTime / Double(count) / 1e9
        let options = optionsTime / Double(count) / 1e9
        let name = ["-7": "ES256", "-8": "EdDSA", "-257": "RS256"]["\(algorithm.rawValue)"] ?? "\(algorithm.rawValue)"
        report(
            String(
                format: "  %@ passkey/login %7.1f µs (%6.0f /s); bare verify %6.1f µs (%7.0f /s); the RP's own work %6.1f µs per login",
                name, login * 1e6, 1 / login, verify * 1e6, 1 / verify, (login - verify) * 1e6))
        report(
            String(
                format: "  %@ options + login round trip (server side) %7.1f µs: %5.0f /s", name, (options + login) * 1e6,
                1 / (options + login)))
    }
}
