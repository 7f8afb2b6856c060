import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

/// What the `clock/` methods share.
enum ClockFamily {
    /// `{now}`.
    static let now = Codec.member("now", Codec<UnixTime>.time)
}
