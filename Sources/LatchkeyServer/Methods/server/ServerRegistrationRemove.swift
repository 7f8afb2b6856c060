import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum ServerRegistrationRemove: RPCMethod {
    static let declaration = MethodDeclaration(
        "server/registration/remove", "Removes the registration on the server, signed by the device (a locked one too).",
        description: """
            As registration/deactivate with onlyLocally false: signed with operation removeRegistration, device alone \
            suffices. A removeRegistration challenge is issued in any state but removed, so a locked phone can still \
            remove itself.
            """,
        errors: ServerFamily.signedErrors)
    static func handle(_ params: ServerFamily.SignedParams, _ context: CallContext) throws -> EmptyResult {
        let signatures = params.signatures.domain
        try context.core.session {
            try $0.removeRegistration(
                registrationId: params.registrationId, challengeId: params.challengeId, signatures: signatures,
                caller: nil)
        }
        return EmptyResult()
    }
}
