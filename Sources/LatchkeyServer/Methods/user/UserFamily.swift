import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

/// What the `user/` methods share (the passkey list is also `reset/resetPasskeys`'s result).
enum UserFamily {
    /// `{passkeys}`.
    static let passkeyList = Codec.member("passkeys", Codec<[Passkey]>.array(.object(Passkey.self)))
}
