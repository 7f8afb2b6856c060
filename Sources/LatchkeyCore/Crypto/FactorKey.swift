import Crypto

/// A factor's P-256 signing key. Private keys live on the device; the server keeps public keys.
enum FactorKey {
    /// A new private key drawn from the random source (so seeded runs derive every key).
    static func generate(_ random: RandomSource) -> [UInt8] {
        while true {
            let candidate = random.bytes(32)
            if (try? P256.Signing.PrivateKey(rawRepresentation: candidate)) != nil { return candidate }
        }
    }

    /// The public key (x9.63) of a raw private key; nil when the bytes are no valid key.
    static func publicKey(of privateKey: [UInt8]) -> [UInt8]? {
        guard let key = try? P256.Signing.PrivateKey(rawRepresentation: privateKey) else { return nil }
        return Array(key.publicKey.x963Representation)
    }

    /// Signs `message`. A wrong key (a wrong PIN's unmasked bytes) still signs — only the server
    /// can tell; bytes that are not a key at all give a signature that cannot verify.
    static func sign(_ message: [UInt8], with privateKey: [UInt8]) -> [UInt8] {
        guard let key = try? P256.Signing.PrivateKey(rawRepresentation: privateKey),
              let signature = try? key.signature(for: message) else {
            return [UInt8](repeating: 0, count: 64)
        }
        return Array(signature.rawRepresentation)
    }

    /// Whether `signature` over `message` verifies under `publicKey`.
    static func verify(_ signature: [UInt8], over message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard let key = try? P256.Signing.PublicKey(x963Representation: publicKey),
              let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
        return key.isValidSignature(parsed, for: message)
    }

    /// What a device signs to answer a challenge: the challenge, the registration, the server's
    /// counter and a hash of the pushed context (empty when none).
    static func challengeMessage(challenge: [UInt8], registrationId: String, counter: Int64, context: String?) -> [UInt8] {
        var data = Array("latchkey-challenge-v1".utf8)
        data += challenge
        data += Array(registrationId.utf8)
        withUnsafeBytes(of: counter.bigEndian) { data += $0 }
        data += Array(SHA256.hash(data: Array((context ?? "").utf8)))
        return Array(SHA256.hash(data: data))
    }
}
