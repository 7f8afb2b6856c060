import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeySimulator
import LatchkeyJSON
import LatchkeyRPC

/// Backup-code registration recovery on a simulated device.
enum RecoveryMethods {
    // Concrete types here, so each entry's decoding and encoding is specialised (no generic
    // metadata lookups per call).
    static let all: [MethodEntry] = [
        .init(GenerateCode.self), .init(StartAddOrUpdate.self), .init(FinishAddOrUpdate.self), .init(Start.self),
        .init(Finish.self), .init(StartDelete.self), .init(FinishDelete.self),
    ]

    static let tokenErrors: [ErrorReason] = [.tokenInvalid, .tokenExpired, .tokenPurposeMismatch]

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

    enum GenerateCode: RPCMethod {
        static let declaration = MethodDeclaration("recovery/generateCode", "A fresh recovery code of 100 bits (4 groups of 5 Base32 characters).",
            description: """
            Draws a fresh recovery code of 100 bits (4 groups of 5 Base32 characters) for users who would rather not \
            choose one. Stores nothing; set it with recovery/startAddOrUpdate and recovery/finishAddOrUpdate.
            """)
        static let result = Codec.member("recoveryCode", .text)
        static func handle(_ params: NoParams, _ context: CallContext) throws -> String {
            // Drawn by the system (whose store holds the keyed-hash key drawn first in a seeded run).
            RecoveryCode.generate(try context.core.random)
        }
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

    enum StartAddOrUpdate: TokenStart {
        static let declaration = MethodDeclaration(
            "recovery/startAddOrUpdate", "Opens setting the recovery code, authorised by an addOrUpdateRecovery token.",
            description: """
            Opens setting or replacing the backup recovery code on an activated device, authorised by a single-use \
            token of purpose addOrUpdateRecovery (from an authentication/finish or activation/finish). Follow with \
            recovery/finishAddOrUpdate.
            """,
            errors: [.notFound, .notActivatedLocally] + ActivationMethods.stateErrors + tokenErrors)
        static let purpose = TokenPurpose.addOrUpdateRecovery
    }

    enum StartDelete: TokenStart {
        static let declaration = MethodDeclaration(
            "recovery/startDelete", "Opens deleting the recovery method, authorised by a deleteRecovery token.",
            description: """
            Opens deleting the backup recovery method, authorised by a single-use token of purpose deleteRecovery. \
            Follow with recovery/finishDelete.
            """,
            errors: [.notFound, .notActivatedLocally, .recoveryNotActivated] + ActivationMethods.stateErrors + tokenErrors)
        static let purpose = TokenPurpose.deleteRecovery
    }

    enum FinishAddOrUpdate: RPCMethod {
        static let declaration = MethodDeclaration(
            "recovery/finishAddOrUpdate", "Sets or replaces the recovery code; the server keeps only a public key.",
            description: """
            Sets or replaces the user-chosen recovery code (6 to 64 characters): the device keeps the recovery data, \
            the server only a public key, never the code.
            """,
            errors: [.notFound, .notActivatedLocally, .policyViolation] + ActivationMethods.finishErrors)
        struct Params: WireReadable {
            var deviceId = ""
            var recoveryParameter = RecoveryParameter()
            var tokenPurpose = TokenPurpose.none
            static let fields: [WireField<Self>] = [
                .deviceId(\.deviceId), .required("recoveryParameter", \.recoveryParameter, .object(RecoveryParameter.self)),
                .tokenPurpose(\.tokenPurpose),
            ]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> RecoveryMethodsOutcome {
            try context.devices.on(params.deviceId) {
                try $0.finishRecoveryAddOrUpdate(code: params.recoveryParameter.recoveryCode, tokenPurpose: params.tokenPurpose)
            }
        }
    }

    enum Start: DeviceCall {
        static let declaration = MethodDeclaration(
            "recovery/start", "Opens a recovery on a device restored from backup.",
            description: """
            Opens a recovery on a device restored from a backup that carries recovery data: answers the auth methods \
            it may activate and the PIN policy. Five wrong codes lock recovery for the registration. Follow with \
            recovery/finish.
            """,
            errors: [.notFound, .alreadyActivated, .recoveryNotActivated, .recoveryLocked] + ActivationMethods.stateErrors)
        typealias Result = ActivationOffer
        static func call(_ device: Device) throws -> ActivationOffer { try device.startRecovery() }
    }

    enum Finish: RPCMethod {
        static let declaration = MethodDeclaration(
            "recovery/finish", "Recovers the registration onto this device with the code and exactly one method besides device.",
            description: """
            Recovers the registration onto this device with the recovery code and exactly one auth method besides \
            device: the registration is re-keyed, the old device's keys stop working and the code is consumed (ask \
            tokenPurpose addOrUpdateRecovery to set a new one).
            """,
            errors: [.notFound, .alreadyActivated, .recoveryNotActivated, .recoveryLocked, .recoveryCodeInvalid, .authMethodNotAllowed,
                     .policyViolation] + ActivationMethods.finishErrors + ActivationMethods.biometryErrors)
        struct Params: WireReadable {
            var deviceId = ""
            var recoveryParameter = RecoveryParameter()
            var authParameter = FinishAuthParameterParam()
            var tokenPurpose = TokenPurpose.none
            static let fields: [WireField<Self>] = [
                .deviceId(\.deviceId), .required("recoveryParameter", \.recoveryParameter, .object(RecoveryParameter.self)),
                .finishAuthParameter(\.authParameter), .tokenPurpose(\.tokenPurpose),
            ]
            static let rules: [WireRule<Self>] = [.oneTokenPurpose(\.tokenPurpose, \.authParameter)]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> ActivationOutcome {
            try context.devices.on(params.deviceId) {
                try $0.finishRecovery(code: params.recoveryParameter.recoveryCode, params.authParameter.domain,
                                   tokenPurpose: requestedTokenPurpose(params.tokenPurpose, params.authParameter))
            }
        }
    }

    enum FinishDelete: RPCMethod {
        static let declaration = MethodDeclaration(
            "recovery/finishDelete", "Deletes the recovery method on both sides (the code given is ignored).",
            description: """
            Deletes the backup recovery method on the device and on the server (the code given is not checked).
            """,
            errors: [.notFound, .notActivatedLocally, .recoveryNotActivated] + ActivationMethods.finishErrors)
        struct Params: WireReadable {
            var deviceId = ""
            var recoveryParameter = DeleteParameter()
            var tokenPurpose = TokenPurpose.none
            static let fields: [WireField<Self>] = [
                .deviceId(\.deviceId), .required("recoveryParameter", \.recoveryParameter, .object(DeleteParameter.self)),
                .tokenPurpose(\.tokenPurpose),
            ]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> RecoveryMethodsOutcome {
            try context.devices.on(params.deviceId) { try $0.finishRecoveryDelete(tokenPurpose: params.tokenPurpose) }
        }
    }
}

extension RecoveryMethods.TokenStart {
    static func handle(_ params: RecoveryMethods.TokenParams, _ context: CallContext) throws -> EmptyResult {
        try context.devices.on(params.deviceId) { try $0.startRecoveryChange(token: params.token, purpose: purpose) }
        return EmptyResult()
    }
}
