import Crypto

// A digest's or MAC's bytes in one copy. `Array(digest)` goes through the Sequence conformance
// instead: an array made to iterate over, then one append a byte.

extension Digest {
    /// The digest's bytes.
    public var byteArray: [UInt8] { withUnsafeBytes { Array($0) } }
}

extension HashedAuthenticationCode {
    /// The code's bytes.
    public var byteArray: [UInt8] { withUnsafeBytes { Array($0) } }
}
