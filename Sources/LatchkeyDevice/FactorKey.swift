import Crypto
import LatchkeyContract

/// A P-256 signing key on the device (the server keeps only public keys).
enum FactorKey {
    /// A new private key drawn from the random source (so seeded runs derive every key).
    static func generate(_ random: RandomSource) -> [UInt8] {
        while true {
            let candidate = random.bytes(32)
            if (try? P256.Signing.PrivateKey(rawRepresentation: candidate)) != nil { return candidate }
        }
    }

    /// The public key of a raw private key; nil when the bytes are no valid key.
    static func publicKey(of privateKey: [UInt8]) -> PublicKey? {
        guard let key = try? P256.Signing.PrivateKey(rawRepresentation: privateKey) else { return nil }
        return PublicKey(sec1: Array(key.publicKey.x963Representation))
    }

    /// The `keyId` of a raw private key's public key (nil when the bytes are no valid key).
    static func keyId(of privateKey: [UInt8]) -> String? {
        guard let key = try? P256.Signing.PrivateKey(rawRepresentation: privateKey) else { return nil }
        return PublicKey.keyId(sec1: Array(key.publicKey.x963Representation))
    }

    /// Signs `payload`.
    ///
    /// A wrong key (a wrong PIN's unmasked bytes) still signs — only the server can tell; bytes that are
    /// not a key at all (a wrong PIN's, once in 2^32) give a signature that cannot verify, as a wrong key's.
    /// - Throws: `SigningFailed` when a valid key does not sign: never a fixed signature in its place.
    static func sign(_ payload: SignedPayload, with privateKey: [UInt8]) throws -> Signature {
        guard let key = try? P256.Signing.PrivateKey(rawRepresentation: privateKey) else {
            return Signature(raw: [UInt8](repeating: 0, count: 64))
        }
        do {
            return Signature(raw: Array(try key.signature(for: payload.bytes).rawRepresentation))
        } catch {
            throw SigningFailed()
        }
    }

    /// A new key's public half with its proof of possession over `payload` (in the key's role).
    /// - Throws: `SigningFailed`.
    static func handOver(_ privateKey: [UInt8], _ payload: SignedPayload) throws -> KeyWithProof? {
        guard let publicKey = publicKey(of: privateKey) else { return nil }
        return KeyWithProof(publicKey: publicKey, proof: try sign(payload, with: privateKey))
    }
}
