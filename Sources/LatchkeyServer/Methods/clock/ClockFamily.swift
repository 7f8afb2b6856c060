import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeySimulator
import LatchkeyJSON
import LatchkeyRPC

/// What the `clock/` methods share.
enum ClockFamily {
    /// `{now}`.
    static let now = Codec.member("now", Codec<UnixTime>.time)
}
