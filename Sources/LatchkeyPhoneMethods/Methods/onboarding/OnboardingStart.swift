import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeyServer
import LatchkeySimulator
import LatchkeyWire

enum OnboardingStart: RPCMethod {
    static let declaration = MethodDeclaration(
        "onboarding/start", "Starts onboarding from identity; the same answer whether or not it matches a user.",
        description: """
            Starts identity-based onboarding on a device from credentials (email, phone number, loginName, or userId \
            with birthDate): an 8-digit OTP goes to the contact on file. Answers the same whether or not the \
            credentials match a user. Follow with onboarding/activate. canRestoreSession (default true, as in the seed's \
            SDK) keeps the process for every latchkey process on the store; false ties it to this process alone.
            """,
        errors: [.notFound, .onboardingCannotActivate, .onboardingInProgress])
    struct Params: WireParams {
        let deviceId: String
        let credentials: OnboardingCredentials
        let applicationId: String?
        let canRestoreSession: Bool
        static let wire = (
            deviceId: WireMember.deviceId, credentials: WireMember.required("credentials", OnboardingFamily.credentials),
            applicationId: WireMember.applicationId,
            canRestoreSession: WireMember.defaulted(
                "canRestoreSession", .bool, default: true,
                "keep the process in every latchkey process on the store (false: another process, as another app instance, forgets it)"
            )
        )
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> EmptyResult {
        let reads = try context.core.onboardingStartReads(
            credentials: params.credentials, applicationId: params.applicationId, caller: .device(params.deviceId))
        try context.devices.on(params.deviceId, reading: reads) {
            try $0.startOnboarding(
                credentials: params.credentials, applicationId: params.applicationId,
                canRestoreSession: params.canRestoreSession)
        }
        return EmptyResult()
    }
}
