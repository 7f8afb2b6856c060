import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

/// What the `accountRecovery/` methods share.
enum AccountRecoveryFamily {
    /// `{accountRecovery}`.
    static let recoveryResult = Codec.member(
        "accountRecovery", Codec<LatchkeyCore.AccountRecoveryStatus>.object(LatchkeyCore.AccountRecoveryStatus.self))
}
