import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyServer
import LatchkeySimulator

/// What the `recovery/` methods share.
enum RecoveryFamily {
    /// `{"method": "backup", "recoveryCode": "…"}`.
    struct RecoveryParameter: WireReadable {
        enum Method: String, CaseIterable, Sendable { case backup }
        var method = Method.backup
        var recoveryCode = ""
        static let schemaName: String? = "RecoveryParameter"
        static let fields: [WireField<Self>] = [
            .required("method", \.method, .enumeration(Method.self)),
            .required("recoveryCode", \.recoveryCode, .text, "6 to 64 characters, chosen by the user"),
        ]
    }

    /// The recovery parameter of a delete, whose code is ignored.
    struct DeleteParameter: WireReadable {
        var method = RecoveryParameter.Method.backup
        var recoveryCode: String?
        static let fields: [WireField<Self>] = [
            .required("method", \.method, .enumeration(RecoveryParameter.Method.self)),
            .optional("recoveryCode", \.recoveryCode, .text, "ignored"),
        ]
    }

    /// `{deviceId, token}`: a token-authorised start.
    struct TokenParams: WireReadable {
        var deviceId = ""
        var token = ""
        static let fields: [WireField<Self>] = [.deviceId(\.deviceId), .required("token", \.token, .text)]
    }

    /// A start authorised by a token of one purpose.
    protocol TokenStart: RPCMethod where Params == TokenParams, Result == EmptyResult {
        static var purpose: TokenPurpose { get }
    }
}

extension RecoveryFamily.TokenStart {
    static func handle(_ params: RecoveryFamily.TokenParams, _ context: CallContext) throws -> EmptyResult {
        try context.devices.on(params.deviceId) { try $0.startRecoveryChange(token: params.token, purpose: purpose) }
        return EmptyResult()
    }
}
