import LatchkeyCore
import LatchkeyJSON

/// Backup-code registration recovery, device backup and restore.
enum RecoveryMethods {
    static let recoveryParameter: Schema = .named("RecoveryParameter", .object([
        Field("method", .enumeration(["backup"])), Field("recoveryCode", .text, "6 to 64 characters, chosen by the user"),
    ]))
    static let recoveryMethods: Schema = .array(.enumeration(["backup"]))
    static let methodsResult: Schema = .object([Field("recoveryMethods", recoveryMethods), Wire.token])
    static let tokenErrors: [ErrorReason] = [.tokenInvalid, .tokenExpired, .tokenPurposeMismatch]

    static func methodsOutcome(_ outcome: RecoveryMethodsOutcome) -> JSON {
        Wire.withToken(JSONObject([("recoveryMethods", .strings(outcome.recoveryMethods))]), outcome.token)
    }

    static let all: [MethodSpec] = [
        MethodSpec("device/isRecoveryActivated", "Whether the device holds recovery data.", params: [Wire.deviceId],
                   result: .object([Field("activated", .boolean)]), errors: [.notFound]) { params, context in
            ["activated": .bool(try context.core.isRecoveryActivated(deviceId: params.string("deviceId")))]
        },
        MethodSpec("device/activatedRecoveryMethods", "The recovery methods the device holds.", params: [Wire.deviceId],
                   result: .object([Field("methods", recoveryMethods)]), errors: [.notFound]) { params, context in
            ["methods": .strings(try context.core.isRecoveryActivated(deviceId: params.string("deviceId")) ? ["backup"] : [])]
        },
        MethodSpec("device/backup", "Backs up the device: recovery data yes, this-device-only activation keys never.",
                   params: [Wire.deviceId, Field("kind", .enumeration(BackupKind.allCases.map(\.rawValue)))],
                   result: .object([Field("backupId", .text)]), errors: [.notFound, .iCloudKeychainDisabled]) { params, context in
            let id = try context.core.backupDevice(deviceId: params.string("deviceId"),
                                                   kind: params.value("kind", as: BackupKind.self) ?? .iCloud)
            return ["backupId": .string(id)]
        },
        MethodSpec("device/restore", "Makes a new device holding what the backup carries.",
                   params: [Field("backupId", .string(minLength: 1)), .optional("deviceId", .string(minLength: 1), "the new device"),
                            .optional("biometry", DeviceMethods.biometry), .optional("iCloudKeychain", .boolean)],
                   result: .object([Field("deviceId", .text)]), errors: [.notFound, .alreadyExists]) { params, context in
            let id = try context.core.restoreDevice(backupId: params.string("backupId"), NewDevice(
                deviceId: params.optionalString("deviceId"), biometry: params.value("biometry", as: Biometry.self) ?? .faceId,
                iCloudKeychain: params.bool("iCloudKeychain", default: true)))
            return ["deviceId": .string(id)]
        },
        MethodSpec("recovery/generateCode", "A fresh recovery code of 100 bits (4 groups of 5 Base32 characters).",
                   result: .object([Field("recoveryCode", .text)])) { _, context in
            ["recoveryCode": .string(context.core.generateRecoveryCode())]
        },
        MethodSpec("recovery/startAddOrUpdate", "Opens setting the recovery code, authorised by an addOrUpdateRecovery token.",
                   params: [Wire.deviceId, Field("token", .text)], result: CommonSchemas.empty,
                   errors: [.notFound, .notActivatedLocally] + ActivationMethods.stateErrors + tokenErrors) { params, context in
            try context.core.startRecoveryChange(deviceId: params.string("deviceId"), token: params.string("token"), purpose: .addOrUpdateRecovery)
            return .object(JSONObject())
        },
        MethodSpec("recovery/finishAddOrUpdate", "Sets or replaces the recovery code; the server keeps only a public key.",
                   params: [Wire.deviceId, Field("recoveryParameter", recoveryParameter), Wire.tokenPurpose], result: methodsResult,
                   errors: [.notFound, .notActivatedLocally, .policyViolation] + ActivationMethods.finishErrors) { params, context in
            methodsOutcome(try context.core.finishRecoveryAddOrUpdate(
                deviceId: params.string("deviceId"), recoveryCode: params.nested("recoveryParameter").string("recoveryCode"),
                tokenPurpose: Wire.tokenPurpose(params)))
        },
        MethodSpec("recovery/start", "Opens a recovery on a device restored from backup.", params: [Wire.deviceId], result: Wire.offerSchema,
                   errors: [.notFound, .alreadyActivated, .recoveryNotActivated, .recoveryLocked] + ActivationMethods.stateErrors) { params, context in
            Wire.offer(try context.core.startRecovery(deviceId: params.string("deviceId")))
        },
        MethodSpec("recovery/finish", "Recovers the registration onto this device with the code and exactly one method besides device.",
                   params: [Wire.deviceId, Field("recoveryParameter", recoveryParameter), Field("authParameter", Wire.authParameter),
                            Wire.tokenPurpose],
                   result: Wire.activationOutcomeSchema,
                   errors: [.notFound, .alreadyActivated, .recoveryNotActivated, .recoveryLocked, .recoveryCodeInvalid,
                            .authMethodNotAllowed, .policyViolation] + ActivationMethods.finishErrors + ActivationMethods.biometryErrors) { params, context in
            Wire.activationOutcome(try context.core.finishRecovery(
                deviceId: params.string("deviceId"), recoveryCode: params.nested("recoveryParameter").string("recoveryCode"),
                try Wire.authParameter(params, "authParameter"), tokenPurpose: Wire.tokenPurpose(params)))
        },
        MethodSpec("recovery/startDelete", "Opens deleting the recovery method, authorised by a deleteRecovery token.",
                   params: [Wire.deviceId, Field("token", .text)], result: CommonSchemas.empty,
                   errors: [.notFound, .notActivatedLocally] + ActivationMethods.stateErrors + tokenErrors) { params, context in
            try context.core.startRecoveryChange(deviceId: params.string("deviceId"), token: params.string("token"), purpose: .deleteRecovery)
            return .object(JSONObject())
        },
        MethodSpec("recovery/finishDelete", "Deletes the recovery method on both sides (the code given is ignored).",
                   params: [Wire.deviceId, Field("recoveryParameter", .object([Field("method", .enumeration(["backup"])),
                                                                             Field.optional("recoveryCode", .text, "ignored")])),
                            Wire.tokenPurpose],
                   result: methodsResult,
                   errors: [.notFound, .notActivatedLocally, .recoveryNotActivated] + ActivationMethods.finishErrors) { params, context in
            methodsOutcome(try context.core.finishRecoveryDelete(deviceId: params.string("deviceId"), tokenPurpose: Wire.tokenPurpose(params)))
        },
    ]
}
