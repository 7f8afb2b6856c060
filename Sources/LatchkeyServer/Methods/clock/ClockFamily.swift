import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeyJSON
import LatchkeyRPC
import LatchkeySimulator

/// What the `clock/` methods share.
enum ClockFamily {
    /// `{now}`.
    static let now = Codec.member("now", Codec<UnixTime>.time)
}
