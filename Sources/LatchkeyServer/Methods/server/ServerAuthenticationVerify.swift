import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum ServerAuthenticationVerify: RPCMethod {
    static let declaration = MethodDeclaration(
        "server/authentication/verify", "Verifies the device's signature, then the second factor's, over the challenge.",
        description: """
            Checks the device signature first (a failing one answers registrationRemoved and counts nothing), then the second \
            factor, which counts as on the simulated device (authenticationFailed, then registrationLocked). Uses the challenge \
            up. A two-factor success approves a picked-up push and may yield a token.
            """,
        errors: ServerFamily.signedErrors)
    struct Params: WireParams {
        let signed: ServerFamily.SignedParams
        let tokenPurpose: TokenPurpose
        static let wire = (signed: WireMember.inline(ServerFamily.SignedParams.self), tokenPurpose: WireMember.tokenPurpose)
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> Verification {
        let signatures = params.signed.signatures.domain
        return try context.core.session {
            try $0.verify(
                registrationId: params.signed.registrationId, challengeId: params.signed.challengeId, signatures: signatures,
                tokenPurpose: params.tokenPurpose, caller: nil)
        }
    }
}
