/// WebAuthn authenticator data (Level 3 §6.1): the RP id hash, flags, signature counter, and —
/// as the flags announce — attested credential data (§6.5.1) and an extensions map.
public struct AuthenticatorData: Sendable, Equatable {
    /// The flags byte.
    public struct Flags: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// UP: the user was present.
        public static let userPresent = Flags(rawValue: 0x01)
        /// UV: the user was verified.
        public static let userVerified = Flags(rawValue: 0x04)
        /// BE: the credential may be backed up (a synced passkey).
        public static let backupEligible = Flags(rawValue: 0x08)
        /// BS: the credential is backed up now.
        public static let backedUp = Flags(rawValue: 0x10)
        /// AT: attested credential data follows the counter.
        public static let attestedCredentialData = Flags(rawValue: 0x40)
        /// ED: an extensions map ends the data.
        public static let extensionData = Flags(rawValue: 0x80)
    }

    /// SHA-256 of the RP id: 32 bytes.
    public var rpIdHash: [UInt8]
    public var flags: Flags
    public var signCount: UInt32
    /// Present exactly when `flags` has AT.
    public var attestedCredential: AttestedCredentialData?
    /// The extensions map (a `.map`), present exactly when `flags` has ED.
    public var extensions: CBOR?

    /// The shortest authenticator data: the hash, the flags and the counter.
    public static let minimumLength = 37
    /// The longest credential id WebAuthn allows.
    public static let maximumCredentialIdLength = 1023

    /// Data to encode; the AT and ED flags are set or cleared to match what is given.
    public init(
        rpIdHash: [UInt8], flags: Flags, signCount: UInt32, attestedCredential: AttestedCredentialData? = nil,
        extensions: CBOR? = nil
    ) {
        self.rpIdHash = rpIdHash
        var flags = flags
        if attestedCredential == nil { flags.remove(.attestedCredentialData) } else { flags.insert(.attestedCredentialData) }
        if extensions == nil { flags.remove(.extensionData) } else { flags.insert(.extensionData) }
        self.flags = flags
        self.signCount = signCount
        self.attestedCredential = attestedCredential
        self.extensions = extensions
    }

    /// Reads authenticator data: at least 37 bytes, and exactly what the flags announce.
    /// - Throws: `AuthenticatorDataError`: fewer than 37 bytes, AT without (whole) attested
    ///   credential data, a credential public key that is not one strict CBOR item, ED without a
    ///   map that ends the data, bytes left over without ED.
    public init(bytes: [UInt8]) throws(AuthenticatorDataError) {
        guard bytes.count >= Self.minimumLength else { throw .tooShort }
        rpIdHash = Array(bytes[0..<32])
        flags = Flags(rawValue: bytes[32])
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var index = Self.minimumLength
        if flags.contains(.attestedCredentialData) {
            // aaguid (16) and the credential id's length (2).
            guard bytes.count - index >= 18 else { throw .truncated }
            let aaguid = Array(bytes[index..<index + 16])
            let idLength = Int(bytes[index + 16]) << 8 | Int(bytes[index + 17])
            index += 18
            guard bytes.count - index >= idLength else { throw .truncated }
            let credentialId = Array(bytes[index..<index + idLength])
            index += idLength
            let key: CBOR
            let consumed: Int
            do { (key, consumed) = try CBORDecoder.decodePrefix(bytes[index...]) } catch { throw .credentialPublicKey(error) }
            let keyBytes = Array(bytes[index..<index + consumed])
            index += consumed
            attestedCredential = AttestedCredentialData(
                aaguid: aaguid, credentialId: credentialId, publicKey: key,
                publicKeyBytes: keyBytes)
        } else {
            attestedCredential = nil
        }
        if flags.contains(.extensionData) {
            guard index < bytes.count else { throw .extensionsMissing }
            let value: CBOR
            do { value = try CBORDecoder.decode(bytes[index...]) } catch { throw .extensions(error) }
            guard value.mapValue != nil else { throw .extensionsNotAMap }
            extensions = value
        } else {
            guard index == bytes.count else { throw .trailingBytes }
            extensions = nil
        }
    }

    /// The bytes: hash, flags, big-endian counter, then attested credential data and extensions.
    public var encoded: [UInt8] {
        var out = rpIdHash
        out.append(flags.rawValue)
        out += [
            UInt8(signCount >> 24), UInt8(truncatingIfNeeded: signCount >> 16), UInt8(truncatingIfNeeded: signCount >> 8),
            UInt8(truncatingIfNeeded: signCount),
        ]
        if let attested = attestedCredential {
            out += attested.aaguid
            out += [UInt8(truncatingIfNeeded: attested.credentialId.count >> 8), UInt8(truncatingIfNeeded: attested.credentialId.count)]
            out += attested.credentialId
            out += attested.publicKeyBytes
        }
        if let extensions { out += extensions.encoded }
        return out
    }

    /// A fuzz entry point: reads any bytes as authenticator data; never traps.
    public static func fuzz(_ bytes: [UInt8]) {
        if let data = try? AuthenticatorData(bytes: bytes) { _ = data.encoded }
    }
}

/// Attested credential data (§6.5.1): the authenticator's AAGUID, the credential id and the
/// credential public key, read as one CBOR item (parsed as a COSE key by the Relying Party).
public struct AttestedCredentialData: Sendable, Equatable {
    /// 16 bytes.
    public var aaguid: [UInt8]
    /// Up to 65535 bytes as read; WebAuthn allows at most 1023 (the Relying Party checks).
    public var credentialId: [UInt8]
    /// The credential public key as decoded.
    public var publicKey: CBOR
    /// The credential public key's bytes as they appeared.
    public var publicKeyBytes: [UInt8]

    public init(aaguid: [UInt8], credentialId: [UInt8], publicKey: CBOR, publicKeyBytes: [UInt8]) {
        self.aaguid = aaguid
        self.credentialId = credentialId
        self.publicKey = publicKey
        self.publicKeyBytes = publicKeyBytes
    }

    /// Data for a key the authenticator made (its canonical COSE bytes).
    public init(aaguid: [UInt8], credentialId: [UInt8], publicKey: COSEKey) {
        self.aaguid = aaguid
        self.credentialId = credentialId
        self.publicKey = publicKey.value
        publicKeyBytes = publicKey.encoded
    }

    /// The AAGUID as a lower-case UUID string (`00000000-0000-0000-0000-000000000000` for none).
    public var aaguidString: String { Self.uuidString(aaguid) }

    /// 16 bytes as a lower-case UUID string; other lengths are written as all zeros.
    public static func uuidString(_ bytes: [UInt8]) -> String {
        let raw = bytes.count == 16 ? bytes : [UInt8](repeating: 0, count: 16)
        let digits = Array("0123456789abcdef")
        var out = ""
        for (index, byte) in raw.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { out.append("-") }
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 15)])
        }
        return out
    }
}

/// Why bytes are not authenticator data (every case is the contract's `encoding` check).
public enum AuthenticatorDataError: Error, Sendable, Equatable {
    /// Fewer than 37 bytes.
    case tooShort
    /// AT is set but the attested credential data ends early.
    case truncated
    /// The credential public key is not one strict CBOR item.
    case credentialPublicKey(CBORError)
    /// ED is set but nothing follows.
    case extensionsMissing
    /// ED is set but what follows is not exactly one strict CBOR item.
    case extensions(CBORError)
    /// ED is set but the item is not a map.
    case extensionsNotAMap
    /// Bytes remain and ED is clear.
    case trailingBytes
}

extension AuthenticatorDataError: CustomStringConvertible {
    /// What was wrong, as human text.
    public var description: String {
        switch self {
        case .tooShort: "fewer than 37 bytes"
        case .truncated: "the attested credential data ends early"
        case .credentialPublicKey(let cbor): "the credential public key is not one strict CBOR item: \(cbor)"
        case .extensionsMissing: "ED is set but no extensions follow"
        case .extensions(let cbor): "the extensions are not one strict CBOR item: \(cbor)"
        case .extensionsNotAMap: "the extensions are not a CBOR map"
        case .trailingBytes: "bytes remain and ED is clear"
        }
    }
}
