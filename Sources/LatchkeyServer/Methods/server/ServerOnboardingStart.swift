import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum ServerOnboardingStart: RPCMethod {
    static let declaration = MethodDeclaration(
        "server/onboarding/start", "Starts onboarding from identity for an installation; the same answer whether or not it matches.",
        description: """
            Starts an identity-based onboarding process (email, phoneNumber, loginName, or userId with birthDate); an \
            OTP goes to the address on file when the credentials match a user. One process at a time per installation \
            (onboardingInProgress).
            """,
        errors: [.notFound, .onboardingCannotActivate, .onboardingInProgress])
    struct Params: WireParams {
        let credentials: OnboardingCredentials
        let installationId: String
        let applicationId: String?
        static let wire = (
            credentials: WireMember.required("credentials", OnboardingFamily.credentials), installationId: WireMember.installationId,
            applicationId: WireMember.applicationId
        )
    }
    static let result = Codec.member("processId", .text)
    static func handle(_ params: Params, _ context: CallContext) throws -> String {
        try context.core.session {
            try $0.startOnboarding(
                credentials: params.credentials, applicationId: params.applicationId,
                caller: .installation(params.installationId))
        }
    }
}
