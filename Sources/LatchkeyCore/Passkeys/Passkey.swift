import LatchkeyContract

/// A passkey as the caller sees it.
public struct Passkey: Sendable, Equatable {
    /// The credential id, unpadded base64url.
    public var id: String
    public var friendlyName: String
    public var createdAt: UnixTime
    public var lastUsedAt: UnixTime?
    /// The COSE algorithm (-7 ES256, -8 EdDSA, -257 RS256).
    public var algorithm: Int
    public var backupEligible: Bool
    public var backedUp: Bool
    public var transports: [String]
    /// The authenticator's AAGUID as a UUID string (all zeros when it sent none).
    public var aaguid: String
}
