import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum ServerActivationCommit: RPCMethod {
    static let declaration = MethodDeclaration(
        "server/activation/commit", "Registers the device's public keys, each with its proof, and creates the registration.",
        description: """
            Completes an activation opened by server/activation/prepare or server/onboarding/activate: checks each key's proof of \
            possession (operation activate, the activationId as subject), consumes the code and creates the registration. \
            A two-factor key needs a method enabled for the application.
            """,
        errors: [
            .noSessionInProgress, .sessionExpired, .activationCodeInvalid, .activationCodeExpired, .authMethodNotAllowed,
            .proofInvalid, .onboardingFailed,
        ])
    struct Params: WireParams {
        let activationId: String
        let keys: KeySetParam
        let activationName: String?
        let tokenPurpose: TokenPurpose
        static let wire = (
            activationId: WireMember.required("activationId", .identifier), keys: WireMember.required("keys", .object(KeySetParam.self)),
            activationName: WireMember.optional("activationName", .text, "names the registration; null when left out"),
            tokenPurpose: WireMember.tokenPurpose
        )
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> CommittedActivation {
        let keys = params.keys.domain
        return CommittedActivation(
            outcome: try context.core.session {
                try $0.commitActivation(
                    activationId: params.activationId, keys: keys, activationName: params.activationName,
                    tokenPurpose: params.tokenPurpose, caller: nil)
            })
    }
}
