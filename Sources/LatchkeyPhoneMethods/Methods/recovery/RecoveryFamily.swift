import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeyServer
import LatchkeySimulator
import LatchkeyWire

/// What the `recovery/` methods share.
enum RecoveryFamily {
    /// `{"method": "backup", "recoveryCode": "…"}`.
    struct RecoveryParameter: WireWritableParams {
        enum Method: String, CaseIterable, Sendable { case backup }
        let method: Method
        let recoveryCode: String
        static let schemaName: String? = "RecoveryParameter"
        static let wire = (
            method: WireMember.required("method", .enumeration(Method.self)),
            recoveryCode: WireMember.required("recoveryCode", .text, "6 to 64 characters, chosen by the user")
        )
    }

    /// The recovery parameter of a delete, whose code is ignored.
    struct DeleteParameter: WireWritableParams {
        let method: RecoveryParameter.Method
        let recoveryCode: String?
        static let wire = (
            method: WireMember.required("method", .enumeration(RecoveryParameter.Method.self)),
            recoveryCode: WireMember.optional("recoveryCode", .text, "ignored")
        )
    }

    /// `{deviceId, token}`: a token-authorised start.
    struct TokenParams: WireParams {
        let deviceId: String
        let token: String
        static let wire = (deviceId: WireMember.deviceId, token: WireMember.required("token", .text))
    }

    /// A start authorised by a token of one purpose.
    protocol TokenStart: RPCMethod where Params == TokenParams, Result == EmptyResult {
        static var purpose: TokenPurpose { get }
    }
}

extension RecoveryFamily.TokenStart {
    static func handle(_ params: RecoveryFamily.TokenParams, _ context: CallContext) throws -> EmptyResult {
        try context.devices.on(params.deviceId, reading: context.core.tokenReads(params.token)) {
            try $0.startRecoveryChange(token: params.token, purpose: purpose)
        }
        return EmptyResult()
    }
}
