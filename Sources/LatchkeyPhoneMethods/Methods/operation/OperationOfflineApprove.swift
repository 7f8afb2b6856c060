import LatchkeyContract
import LatchkeyDevice
import LatchkeyServer
import LatchkeyWire

enum OperationOfflineApprove: RPCMethod {
    static let declaration = MethodDeclaration(
        "operation/offlineApprove", "The simulated phone scans a QR payload and shows the code, with no server call.",
        description: """
            The phone checks the QR payload's signature with the operation-signing key it kept from its activation (any flaw: \
            qrInvalid, nothing shown), shows the title, message and data, and after the PIN or biometry answers the code the \
            user types back: part(device)-part(method), each from ECDH with the registration's server key, HKDF-SHA256, \
            HMAC-SHA256 and RFC 4226 truncation. A wrong PIN gives a wrong code only the server can tell. device, a method not \
            activated, or touchId/faceId without the B flag answer authMethodNotAllowed; offlineUnavailable until the phone \
            learned its server key and the operation-signing key (a phone restored from a backup learns the latter at its \
            first online authentication or operation/list).
            """,
        errors: [.notFound, .notActivatedLocally, .qrInvalid, .offlineUnavailable, .authMethodNotAllowed] + CommonErrors.biometry
            + [.biometryKeyInvalidated])
    struct Params: WireParams {
        let deviceId: String
        let qrPayload: String
        let authParameter: AuthParameterParam
        static let wire = (
            deviceId: WireMember.deviceId,
            qrPayload: WireMember.required("qrPayload", .scanned, "the QR code's text, as admin/operationQrCode made it"),
            authParameter: WireMember.required("authParameter", .object(AuthParameterParam.self))
        )
    }
    typealias Result = OfflineApproval
    static func handle(_ params: Params, _ context: CallContext) throws -> OfflineApproval {
        let parameter = params.authParameter.domain
        return try context.devices.on(params.deviceId, pin: parameter.unmaskingPin) { try $0.approveOffline(qrPayload: params.qrPayload, parameter) }
    }
}

extension OfflineApproval: WireObject {
    public static let fields: [WireField<Self>] = [
        .required("code", \.code, .text, "8 digits, -, 8 digits: what the user types back"), .required("operationId", \.operationId, .text),
        .required("title", \.title, .text), .required("message", \.message, .text), .required("data", \.data, .text),
    ]
}
