import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeySimulator
import LatchkeyJSON
import LatchkeyRPC

/// Identity-based onboarding with an OTP, on a simulated device.
enum OnboardingMethods {
    // Concrete types here, so each entry's decoding and encoding is specialised (no generic
    // metadata lookups per call).
    static let all: [MethodEntry] = [
        .init(Start.self), .init(HasActiveProcess.self), .init(Status.self), .init(Activate.self), .init(ResendOtp.self),
        .init(Cancel.self),
    ]

    /// The identity onboarding starts from, as the seed's `start(credentials:)` sends it: `email`,
    /// `phoneNumber`, `loginName`, or `userId` (the seed's `userID`) with `birthDate`; `birthDate`
    /// may come with any of them. Any other shape is refused naming the key (a shape says
    /// nothing about users).
    static let credentials = Codec<OnboardingCredentials>(
        schema: .named("OnboardingCredentials", .object([
            Field("email", .string(), required: false), Field("phoneNumber", .string(), required: false),
            Field("loginName", .string(), required: false), Field("userId", .string(), required: false, "with birthDate"),
            Field("userID", .string(), required: false, "the seed's spelling of userId"),
            Field("birthDate", .string(format: "date"), required: false, "YYYY-MM-DD; required with userId, optional with the others"),
        ], additional: false)),
        read: { json, path, problems in
            guard case .object(let object) = json else {
                problems.append(ParamProblem(path, "must be an object, not \(json.typeName)"))
                return nil
            }
            let before = problems.count
            var credentials = OnboardingCredentials()
            for entry in object.entries {
                let keyPath = memberPath(path, entry.key)
                guard let slot = credentialSlots[entry.key] else {
                    problems.append(ParamProblem(keyPath, keyPath == path ? "has a key Latchkey does not know" : unknownCredential))
                    continue
                }
                guard case .string(let value) = entry.value else {
                    problems.append(ParamProblem(keyPath, "must be a string, not \(entry.value.typeName)"))
                    continue
                }
                guard acceptsText(value, keyPath, &problems), entry.key != "phoneNumber" || Codec.phoneNumber.read(entry.value, keyPath, &problems) != nil else { continue }
                if entry.key == "userID", object["userId"] != nil {
                    problems.append(ParamProblem(keyPath, "is the same key as userId: give one of them"))
                    continue
                }
                credentials[keyPath: slot] = value
            }
            guard problems.count == before else { return nil }
            if credentials.email == nil, credentials.phoneNumber == nil, credentials.loginName == nil, credentials.userId == nil {
                problems.append(ParamProblem(path, "must name the user: email, phoneNumber, loginName, or userId with birthDate"))
            } else if credentials.userId != nil, credentials.birthDate == nil {
                problems.append(ParamProblem("\(path).birthDate", "is required with userId"))
            }
            return problems.count == before ? credentials : nil
        },
        write: { credentials in
            var object = JSONObject()
            for (key, slot) in credentialOrder { if let value = credentials[keyPath: slot] { object.appendUnchecked(key, .string(value)) } }
            return .object(object)
        })

    private static let credentialOrder: [(String, WritableKeyPath<OnboardingCredentials, String?> & Sendable)] = [
        ("email", \.email), ("phoneNumber", \.phoneNumber), ("loginName", \.loginName), ("userId", \.userId), ("birthDate", \.birthDate),
    ]
    private static let credentialSlots = Dictionary(uniqueKeysWithValues: credentialOrder + [("userID", \OnboardingCredentials.userId)])
    private static let unknownCredential = "is not a credential Latchkey knows (email, phoneNumber, loginName, userId with birthDate)"

    enum Start: RPCMethod {
        static let declaration = MethodDeclaration(
            "onboarding/start", "Starts onboarding from identity; the same answer whether or not it matches a user.",
            description: """
            Starts identity-based onboarding on a device from credentials (email, phone number, loginName, or userId \
            with birthDate): an 8-digit OTP goes to the contact on file. Answers the same whether or not the \
            credentials match a user. Follow with onboarding/activate.
            """,
            errors: [.notFound, .onboardingCannotActivate, .onboardingInProgress])
        struct Params: WireReadable {
            var deviceId = ""
            var credentials = OnboardingCredentials()
            var applicationId: String?
            var canRestoreSession = false
            static let fields: [WireField<Self>] = [
                .deviceId(\.deviceId), .required("credentials", \.credentials, OnboardingMethods.credentials), .applicationId(\.applicationId),
                .defaulted("canRestoreSession", \.canRestoreSession, .bool, default: false, "keep the process across restarts"),
            ]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> EmptyResult {
            try context.devices.on(params.deviceId) {
                try $0.startOnboarding(credentials: params.credentials, applicationId: params.applicationId,
                                       canRestoreSession: params.canRestoreSession)
            }
            return EmptyResult()
        }
    }

    enum HasActiveProcess: DeviceCall {
        static let declaration = MethodDeclaration(
            "onboarding/hasActiveProcess", "Whether an onboarding process runs on the device.",
            description: "Whether the device remembers an onboarding process, from its own state with no server call.",
            errors: [.notFound])
        static let result = Codec.member("active", .bool)
        static func call(_ device: Device) throws -> Bool { try device.hasActiveOnboarding }
    }

    enum Status: DeviceCall {
        static let declaration = MethodDeclaration(
            "onboarding/status", "Where the device's onboarding process stands.",
            description: """
            Where the device's onboarding process stands: activationInProgress, verificationInProgress, failed or \
            finished. A finished or failed answer ends the device's process.
            """,
            errors: [.notFound, .onboardingNotRunning])
        static let result = Codec.member("status", .enumeration(OnboardingStatus.self))
        static func call(_ device: Device) throws -> OnboardingStatus { try device.onboardingStatus() }
    }

    enum Activate: RPCMethod {
        static let declaration = MethodDeclaration(
            "onboarding/activate", "Checks the OTP and opens the activation; activation/finish completes it.",
            description: """
            Checks the onboarding OTP and opens the activation, answering as activation/start does; activation/finish \
            completes it and the registration stays verificationPending until admin/completeVerification. The fifth \
            wrong OTP fails the process.
            """,
            errors: [.notFound, .onboardingNotRunning, .onboardingFailed, .onboardingCannotActivate, .otpInvalid, .otpExpired])
        struct Params: WireReadable {
            var deviceId = ""
            var otp = ""
            var activationName: String?
            static let fields: [WireField<Self>] = [
                .deviceId(\.deviceId), .required("otp", \.otp, .text), .optional("activationName", \.activationName, .text),
            ]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> ActivationOffer {
            try context.devices.on(params.deviceId) { try $0.activateOnboarding(otp: params.otp, activationName: params.activationName) }
        }
    }

    enum ResendOtp: DeviceCall {
        static let declaration = MethodDeclaration(
            "onboarding/resendOtp", "Sends a new OTP; the previous one dies.",
            description: """
            Sends a new onboarding OTP; the previous one stops working. Wrong tries are not reset, and a resend within \
            30 s of the last send answers resendLimited.
            """,
            errors: [.notFound, .onboardingNotRunning, .onboardingFailed, .resendLimited])
        typealias Result = EmptyResult
        static func call(_ device: Device) throws -> EmptyResult {
            try device.resendOnboardingOtp()
            return EmptyResult()
        }
    }

    enum Cancel: RPCMethod {
        static let declaration = MethodDeclaration(
            "onboarding/cancel", "Cancels the device's onboarding process.",
            description: """
            Cancels the device's onboarding process on the server and the device. With forceCancel (the default) the \
            device forgets its process even when the server cannot cancel it.
            """,
            errors: [.notFound, .onboardingNotRunning, .onboardingFailed])
        struct Params: WireReadable {
            var deviceId = ""
            var forceCancel = true
            static let fields: [WireField<Self>] = [.deviceId(\.deviceId), .defaulted("forceCancel", \.forceCancel, .bool, default: true)]
        }
        static func handle(_ params: Params, _ context: CallContext) throws -> EmptyResult {
            try context.devices.on(params.deviceId) { try $0.cancelOnboarding(forceCancel: params.forceCancel) }
            return EmptyResult()
        }
    }
}
