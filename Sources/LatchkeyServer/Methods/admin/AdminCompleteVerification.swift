import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum AdminCompleteVerification: RPCMethod {
    static let declaration = MethodDeclaration(
        "admin/completeVerification", "Ends onboarding identity verification; rejected removes the registration.",
        description: """
            Ends the identity verification of a registration made by onboarding: approved makes it active, rejected \
            removes it. Name the user or the registration.
            """,
        errors: [.notFound], access: .admin)
    struct Params: WireParams {
        let userId: String?
        let registrationId: String?
        let approved: Bool
        static let wire = (
            userId: WireMember.optional("userId", .identifier), registrationId: WireMember.optional("registrationId", .identifier),
            approved: WireMember.required("approved", .bool)
        )
        static let oneTarget = WireRule<Self>.exactlyOne("userId", \.userId, "registrationId", \.registrationId)
        static let rules = [oneTarget]
        func target() throws -> VerificationTarget {
            try eitherOr(self, Self.oneTarget, userId, VerificationTarget.user, registrationId, VerificationTarget.registration)
        }
    }
    static let result = Codec.member("status", .enumeration(LatchkeyContract.OnboardingStatus.self))
    static func handle(_ params: Params, _ context: CallContext) throws -> LatchkeyContract.OnboardingStatus {
        try context.core.completeVerification(try params.target(), approved: params.approved)
    }
}
