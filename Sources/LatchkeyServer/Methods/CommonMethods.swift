import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeyRPC

// What several method families share: the params that name one thing, and the handler of the
// methods that only pass that name on to one call (declared once here, so each such method is
// its declaration, its result and that one call).

/// `{deviceId}`: the params of every call that acts on one simulated device and takes nothing else.
struct DeviceParams: WireReadable {
    var deviceId = ""
    static let fields: [WireField<Self>] = [.deviceId(\.deviceId)]
}

/// `{sessionId}`: a signed-in user's session.
struct SessionParams: WireReadable {
    var sessionId = ""
    static let fields: [WireField<Self>] = [.required("sessionId", \.sessionId, .identifier)]
}

/// `{registrationId}`.
struct RegistrationParams: WireReadable {
    var registrationId = ""
    static let fields: [WireField<Self>] = [.registrationId(\.registrationId)]
}

/// `{processId}`: an onboarding process of a device outside the process.
struct ProcessParams: WireReadable {
    var processId = ""
    static let fields: [WireField<Self>] = [.required("processId", \.processId, .identifier)]
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

/// A method that makes one call for a signed-in user (`{sessionId}` only).
protocol SessionCall: RPCMethod where Params == SessionParams {
    static func call(_ core: Latchkey, sessionId: String) throws -> Result
}

extension SessionCall {
    static func handle(_ params: SessionParams, _ context: CallContext) throws -> Result {
        try call(context.core, sessionId: params.sessionId)
    }
}

/// A method that makes one call of the server half on an onboarding process (`{processId}` only).
protocol ProcessCall: RPCMethod where Params == ProcessParams {
    static func call(_ session: ServerSession, processId: String) throws -> Result
}

extension ProcessCall {
    static func handle(_ params: ProcessParams, _ context: CallContext) throws -> Result {
        try context.core.session { try call($0, processId: params.processId) }
    }
}
