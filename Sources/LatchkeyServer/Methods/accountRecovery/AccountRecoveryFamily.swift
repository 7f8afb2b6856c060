import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeyJSON
import LatchkeyRPC
import LatchkeySimulator

/// What the `accountRecovery/` methods share.
enum AccountRecoveryFamily {
    /// `{accountRecovery}`.
    static let recoveryResult = Codec.member(
        "accountRecovery", Codec<LatchkeyCore.AccountRecoveryStatus>.object(LatchkeyCore.AccountRecoveryStatus.self))
}
