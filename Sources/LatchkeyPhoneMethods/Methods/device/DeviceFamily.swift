import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyServer
import LatchkeySimulator

/// What the `device/` methods share.
enum DeviceFamily {
    /// `{deviceId}` as a result.
    static let deviceIdResult = Codec.member("deviceId", Codec<String>.text)

    /// `{activated}`.
    static let activated = Codec.member("activated", Codec<Bool>.bool)

    /// The hardware a new simulated phone has.
    static func hardware<Root>(
        _ biometry: WritableKeyPath<Root, Biometry> & Sendable,
        _ iCloudKeychain: WritableKeyPath<Root, Bool> & Sendable
    ) -> [WireField<Root>] {
        [
            .defaulted("biometry", biometry, .enumeration(Biometry.self), default: .faceId),
            .defaulted("iCloudKeychain", iCloudKeychain, .bool, default: true),
        ]
    }
}
