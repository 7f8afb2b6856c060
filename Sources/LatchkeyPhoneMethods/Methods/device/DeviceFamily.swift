import LatchkeyDevice
import LatchkeyJSON
import LatchkeyServer
import LatchkeyWire

/// What the `device/` methods share.
enum DeviceFamily {
    /// `{deviceId}` as a result.
    static let deviceIdResult = Codec.member("deviceId", Codec<String>.text)

    /// `{activated}`.
    static let activated = Codec.member("activated", Codec<Bool>.bool)

    /// `{biometry*, iCloudKeychain*}`: the hardware a new simulated phone has.
    struct Hardware: WireWritableParams {
        let biometry: Biometry
        let iCloudKeychain: Bool
        static let wire = (
            biometry: WireMember.defaulted("biometry", .enumeration(Biometry.self), default: .faceId),
            iCloudKeychain: WireMember.defaulted("iCloudKeychain", .bool, default: true)
        )
    }
}
