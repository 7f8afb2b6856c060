import Crypto
import LatchkeyContract

/// A discoverable credential a platform authenticator keeps (a passkey in the phone's keychain): a value the caller persists.
///
/// Holds the private key — it never leaves the device's storage.
public struct PlatformCredential: Sendable, Equatable {
    public var id: [UInt8]
    public var rpId: String
    public var userHandle: [UInt8]
    public var algorithm: COSEAlgorithm
    /// The P-256 scalar (ES256) or the Ed25519 seed (EdDSA): 32 bytes.
    public var privateKey: [UInt8]
    /// The last signature counter reported (always 0 for a synced credential).
    public var signCount: UInt32
    /// A synced passkey (iCloud Keychain on): BE and BS set, counter 0.
    ///
    /// Else device-bound.
    public var synced: Bool
    public var createdAt: UnixTime

    /// The credential's public key in COSE form; nil when the stored private key is unusable.
    public var publicKey: COSEKey? {
        switch algorithm {
        case .es256: return (try? P256.Signing.PrivateKey(rawRepresentation: privateKey)).map { COSEKey($0.publicKey) }
        case .eddsa: return (try? Curve25519.Signing.PrivateKey(rawRepresentation: privateKey)).map { COSEKey($0.publicKey) }
        case .rs256: return nil
        }
    }
}

/// What `navigator.credentials.create()` asks a platform authenticator for, once the browser
/// part (RP id against origin, user verification) is done.
public struct PlatformCreationRequest: Sendable, Equatable {
    public var rpId: String
    public var userHandle: [UInt8]
    /// `pubKeyCredParams`' algorithm identifiers, in the options' order (unknown ones are skipped).
    public var algorithms: [Int64]
    /// `excludeCredentials`' ids.
    public var excludeCredentials: [[UInt8]]
    /// The client data the caller (acting as the browser) serialised (signed only by a packed
    /// attestation; this authenticator answers `none`, so it is kept for the record).
    public var clientDataJSON: [UInt8]
    /// Whether the user was verified (UV).
    public var userVerified: Bool
    /// A synced passkey (BE, BS, counter 0) or a device-bound one (counter from 1).
    public var synced: Bool

    public init(
        rpId: String, userHandle: [UInt8], algorithms: [Int64], excludeCredentials: [[UInt8]], clientDataJSON: [UInt8], userVerified: Bool,
        synced: Bool
    ) {
        self.rpId = rpId
        self.userHandle = userHandle
        self.algorithms = algorithms
        self.excludeCredentials = excludeCredentials
        self.clientDataJSON = clientDataJSON
        self.userVerified = userVerified
        self.synced = synced
    }
}

/// A new credential and what the authenticator answers for it.
public struct PlatformCreation: Sendable, Equatable {
    /// What the caller keeps.
    public var credential: PlatformCredential
    /// `attestationObject`: `fmt` `none`, an empty `attStmt`, the authenticator data.
    public var attestationObject: [UInt8]
    public var authenticatorData: [UInt8]
    /// The canonical COSE public key (`getPublicKey()`'s COSE form).
    public var publicKey: [UInt8]
}

/// An assertion and the credential with its counter moved on (for the caller to keep).
public struct PlatformAssertion: Sendable, Equatable {
    public var credential: PlatformCredential
    public var authenticatorData: [UInt8]
    /// ES256: DER; EdDSA: 64 bytes.
    public var signature: [UInt8]
    public var userHandle: [UInt8]
}

/// Why a platform authenticator made nothing.
public enum PlatformAuthenticatorError: Error, Sendable, Equatable {
    /// None of the offered algorithms is ES256 or EdDSA.
    case noSupportedAlgorithm
    /// It holds a credential of `excludeCredentials` (the contract's `alreadyExists`).
    case excluded
    /// A stored credential's key is unusable.
    case unusableKey
}

/// The device half of a platform authenticator (store-free, JSON-free): makes ES256 or EdDSA
/// credentials with keys and ids from the injected `RandomSource`, answers creation with a `none`
/// attestation and assertions with deterministic signatures (RFC 6979 for ES256; Ed25519 is
/// deterministic), so a seeded run replays byte for byte.
public struct PlatformAuthenticator: Sendable {
    /// Credential ids are 20 random bytes (as iCloud Keychain's).
    public static let credentialIdLength = 20
    /// The algorithms it makes, in its own preference when the options allow both.
    public static let supported: [COSEAlgorithm] = [.es256, .eddsa]

    public let random: any RandomSource
    /// 16 bytes; all zeros (what an authenticator answering `attestation: "none"` sends).
    public let aaguid: [UInt8]

    public init(random: any RandomSource, aaguid: [UInt8] = [UInt8](repeating: 0, count: 16)) {
        self.random = random
        self.aaguid = aaguid.count == 16 ? aaguid : [UInt8](repeating: 0, count: 16)
    }

    /// Makes a credential: the first offered algorithm it supports, a credential id (drawn first)
    /// and a key (drawn next) from the random source.
    /// - Parameter held: the credentials the device holds (to refuse an excluded one).
    /// - Throws: `.excluded`, `.noSupportedAlgorithm`.
    public func create(
        _ request: PlatformCreationRequest, held: [PlatformCredential], now: UnixTime
    )
        throws(PlatformAuthenticatorError) -> PlatformCreation
    {
        let excluded = Set(request.excludeCredentials)
        guard !held.contains(where: { $0.rpId == request.rpId && excluded.contains($0.id) }) else { throw .excluded }
        guard
            let algorithm = request.algorithms.lazy.compactMap({ COSEAlgorithm(rawValue: $0) })
                .first(where: { Self.supported.contains($0) })
        else { throw .noSupportedAlgorithm }
        let id = random.bytes(Self.credentialIdLength)
        let privateKey: [UInt8]
        let publicKey: COSEKey
        switch algorithm {
        case .eddsa:
            let seed = random.bytes(32)
            guard let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: seed) else { throw .unusableKey }
            privateKey = seed
            publicKey = COSEKey(key.publicKey)
        default:
            // A scalar in 1…n−1: redrawn in the (≈2⁻³²) case it is not.
            var drawn: (scalar: [UInt8], key: P256.Signing.PrivateKey)?
            while drawn == nil {
                let scalar = random.bytes(32)
                if let key = try? P256.Signing.PrivateKey(rawRepresentation: scalar) { drawn = (scalar, key) }
            }
            guard let drawn else { throw .unusableKey }
            privateKey = drawn.scalar
            publicKey = COSEKey(drawn.key.publicKey)
        }
        let credential = PlatformCredential(
            id: id, rpId: request.rpId, userHandle: request.userHandle, algorithm: algorithm,
            privateKey: privateKey, signCount: request.synced ? 0 : 1, synced: request.synced,
            createdAt: now)
        let data = AuthenticatorData(
            rpIdHash: SHA256.hash(data: Array(request.rpId.utf8)).byteArray, flags: flags(credential, userVerified: request.userVerified),
            signCount: credential.signCount,
            attestedCredential: AttestedCredentialData(aaguid: aaguid, credentialId: id, publicKey: publicKey))
        let authData = data.encoded
        let object = AttestationObject(format: "none", statement: [], authData: authData)
        return PlatformCreation(
            credential: credential, attestationObject: object.encoded, authenticatorData: authData,
            publicKey: publicKey.encoded)
    }

    /// Signs an assertion with `credential`: authenticator data (a device-bound credential's
    /// counter moved on by one, a synced one's left at 0) and a signature over
    /// `authData ‖ SHA-256(clientDataJSON)`.
    /// - Throws: `.unusableKey`.
    public func get(
        _ credential: PlatformCredential, clientDataJSON: [UInt8], userVerified: Bool
    )
        throws(PlatformAuthenticatorError) -> PlatformAssertion
    {
        var credential = credential
        if !credential.synced { credential.signCount &+= 1 }
        let authData = AuthenticatorData(
            rpIdHash: SHA256.hash(data: Array(credential.rpId.utf8)).byteArray,
            flags: flags(credential, userVerified: userVerified), signCount: credential.signCount
        ).encoded
        let signed = authData + SHA256.hash(data: clientDataJSON).byteArray
        let signature: [UInt8]
        switch credential.algorithm {
        case .es256:
            guard let der = DeterministicECDSA.signDER(signed, privateKey: credential.privateKey) else { throw .unusableKey }
            signature = der
        case .eddsa:
            guard let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: credential.privateKey),
                let raw = try? key.signature(for: signed)
            else { throw .unusableKey }
            signature = Array(raw)
        case .rs256:
            throw .unusableKey
        }
        return PlatformAssertion(
            credential: credential, authenticatorData: authData, signature: signature,
            userHandle: credential.userHandle)
    }

    /// The credential a get uses: the first `allowCredentials` entry it holds for the RP id.
    ///
    /// When the list is empty, its newest credential for the RP id (the later one held on a tie).
    ///
    /// Nil when it holds none (the contract's `notFound`, `kind: "passkey"`).
    public static func credentialForGet(
        held: [PlatformCredential], rpId: String, allowCredentials: [[UInt8]]
    )
        -> PlatformCredential?
    {
        let forRP = held.filter { $0.rpId == rpId }
        guard !allowCredentials.isEmpty else {
            return forRP.reduce(nil) { newest, next in
                guard let newest else { return next }
                return next.createdAt >= newest.createdAt ? next : newest
            }
        }
        for id in allowCredentials {
            if let match = forRP.first(where: { $0.id == id }) { return match }
        }
        return nil
    }

    private func flags(_ credential: PlatformCredential, userVerified: Bool) -> AuthenticatorData.Flags {
        var flags: AuthenticatorData.Flags = [.userPresent]
        if userVerified { flags.insert(.userVerified) }
        if credential.synced { flags.formUnion([.backupEligible, .backedUp]) }
        return flags
    }
}
