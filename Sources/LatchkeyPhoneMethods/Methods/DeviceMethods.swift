import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeyRPC
import LatchkeyServer

// What several families of the simulated phone's methods share: the params that name one device,
// the handler of the methods that only ask it one thing, and the params of a finish.

/// `{deviceId}`: the params of every call that acts on one simulated device and takes nothing else.
struct DeviceParams: WireReadable {
    var deviceId = ""
    static let fields: [WireField<Self>] = [.deviceId(\.deviceId)]
}

/// `{applicationId*}`.
struct ApplicationParams: WireReadable {
    var applicationId: String?
    static let fields: [WireField<Self>] = [.applicationId(\.applicationId)]
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
struct FinishParams: WireReadable {
    var deviceId = ""
    var authParameter = FinishAuthParameterParam()
    var tokenPurpose = TokenPurpose.none
    static let fields: [WireField<Self>] = [
        .deviceId(\.deviceId), .finishAuthParameter(\.authParameter), .tokenPurpose(\.tokenPurpose),
    ]
    static let rules: [WireRule<Self>] = [.oneTokenPurpose(\.tokenPurpose, \.authParameter)]
    var purpose: TokenPurpose { requestedTokenPurpose(tokenPurpose, authParameter) }
}

extension WireField {
    /// The simulated device a call acts on.
    static func deviceId(_ keyPath: WritableKeyPath<Root, String> & Sendable) -> WireField {
        .required("deviceId", keyPath, .identifier, "the simulated device")
    }
}
