import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeySimulator
import LatchkeyJSON
import LatchkeyRPC

enum AdminCompleteVerification: RPCMethod {
    static let declaration = MethodDeclaration(
        "admin/completeVerification", "Ends onboarding identity verification; rejected removes the registration.",
        description: """
        Ends the identity verification of a registration made by onboarding: approved makes it active, rejected \
        removes it. Name the user or the registration.
        """,
        errors: [.notFound], access: .admin)
    struct Params: WireReadable {
        var userId: String?
        var registrationId: String?
        var approved = false
        static let fields: [WireField<Self>] = [
            .optional("userId", \.userId, .identifier), .optional("registrationId", \.registrationId, .identifier),
            .required("approved", \.approved, .bool),
        ]
        static let rules: [WireRule<Self>] = [.exactlyOne("userId", \.userId, "registrationId", \.registrationId)]
        var target: VerificationTarget { registrationId.map(VerificationTarget.registration) ?? .user(userId ?? "") }
    }
    static let result = Codec.member("status", .enumeration(LatchkeyContract.OnboardingStatus.self))
    static func handle(_ params: Params, _ context: CallContext) throws -> LatchkeyContract.OnboardingStatus {
        try context.core.completeVerification(params.target, approved: params.approved)
    }
}
