import LatchkeyCore
import LatchkeyJSON

/// The simulated phone's local state.
enum DeviceMethods {
    static let biometry: Schema = .enumeration(Biometry.allCases.map(\.rawValue))

    static let all: [MethodSpec] = [
        MethodSpec("device/create", "Creates a simulated phone (deviceId generated when absent).",
                   params: [.optional("deviceId", .string(minLength: 1)), .optional("biometry", biometry, "default faceId"),
                            .optional("iCloudKeychain", .boolean, "default true"), .optional("name", .text)],
                   result: .object([Field("deviceId", .text)]), errors: [.alreadyExists]) { params, context in
            let id = try context.core.createDevice(NewDevice(
                deviceId: params.optionalString("deviceId"), biometry: params.value("biometry", as: Biometry.self) ?? .faceId,
                iCloudKeychain: params.bool("iCloudKeychain", default: true), name: params.optionalString("name")))
            return ["deviceId": .string(id)]
        },
        MethodSpec("device/setBiometricOutcome", "Sets what the biometric sensor answers from now on (sticks until changed).",
                   params: [Wire.deviceId, Field("outcome", .enumeration(BiometricOutcome.allCases.map(\.rawValue)))],
                   result: .object([Field("outcome", .enumeration(BiometricOutcome.allCases.map(\.rawValue)))]),
                   errors: [.notFound]) { params, context in
            let outcome = params.value("outcome", as: BiometricOutcome.self) ?? .match
            try context.core.setBiometricOutcome(deviceId: params.string("deviceId"), outcome)
            return ["outcome": .string(outcome.rawValue)]
        },
        MethodSpec("device/isActivatedLocally", "Whether the device holds an activation (no server call).",
                   params: [Wire.deviceId], result: .object([Field("activated", .boolean)]), errors: [.notFound]) { params, context in
            ["activated": .bool(try context.core.isActivatedLocally(deviceId: params.string("deviceId")))]
        },
        MethodSpec("device/registrationId", "The registration the device holds (null when none).",
                   params: [Wire.deviceId], result: .object([Field("registrationId", .nullable(.text))]),
                   errors: [.notFound]) { params, context in
            ["registrationId": .string(orNull: try context.core.deviceRegistrationId(deviceId: params.string("deviceId")))]
        },
    ]
}
