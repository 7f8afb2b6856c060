import LatchkeyContract
import LatchkeyDevice
import LatchkeyServer
import LatchkeyWire

// What several families of the simulated phone's methods share: the params that name one device,
// the handler of the methods that only ask it one thing, and the params of a finish.

/// `{deviceId}`: the params of every call that acts on one simulated device and takes nothing else.
struct DeviceParams: WireParams {
    let deviceId: String
    static let wire = WireMember.deviceId
}

/// `{applicationId*}`.
struct ApplicationParams: WireParams {
    let applicationId: String?
    static let wire = WireMember.applicationId
}

/// A method that asks one simulated device one thing (`{deviceId}` only): the call runs on the
/// device, in one transaction with the server half.
protocol DeviceCall: RPCMethod where Params == DeviceParams {
    static func call(_ device: Device) throws -> Result
}

extension DeviceCall {
    static func handle(_ params: DeviceParams, _ context: CallContext) throws -> Result {
        try context.devices.on(params.deviceId) { try call($0) }
    }
}

/// `{deviceId, authParameter, tokenPurpose*}`.
struct FinishParams: WireWritableParams {
    let deviceId: String
    let authParameter: FinishAuthParameterParam
    let tokenPurpose: TokenPurpose
    static let wire = (deviceId: WireMember.deviceId, authParameter: WireMember.finishAuthParameter, tokenPurpose: WireMember.tokenPurpose)
    static let rules: [WireRule<Self>] = [.oneTokenPurpose(\.tokenPurpose, \.authParameter)]
    var purpose: TokenPurpose { requestedTokenPurpose(tokenPurpose, authParameter) }
}

extension WireMember where Value == String {
    /// The simulated device a call acts on.
    static let deviceId = WireMember.required("deviceId", .identifier, "the simulated device")
}
