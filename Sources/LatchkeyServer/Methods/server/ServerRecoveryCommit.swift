import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

enum ServerRecoveryCommit: RPCMethod {
    static let declaration = MethodDeclaration(
        "server/recovery/commit", "Recovers the registration onto new keys with the recovery key's signature.",
        description: """
            keys are device and exactly one two-factor method, each with its proof (operation recover). A failing \
            recoverySignature counts against the 5 recovery attempts (recoveryCodeInvalid, then recoveryLocked); success \
            consumes the recovery key and re-keys the registration, so the old device's keys stop working.
            """,
        errors: ServerFamily.challengeErrors + [.recoveryNotActivated, .recoveryLocked, .recoveryCodeInvalid, .authMethodNotAllowed, .proofInvalid])
    struct Params: WireReadable {
        var challenge = ServerFamily.ChallengeParams()
        var recoverySignature: Signature?
        var keys = KeySetParam()
        var tokenPurpose = TokenPurpose.none
        static let fields: [WireField<Self>] =
            ServerFamily.ChallengeParams.fields.map { $0.lifted(\.challenge) } + [
                .required("recoverySignature", \.recoverySignature, Codec.signature.stored, "role recovery, operation recover"),
                .required("keys", \.keys, .object(KeySetParam.self), "device and exactly one two-factor method"),
                .tokenPurpose(\.tokenPurpose),
            ]
        static let rules: [WireRule<Self>] = [KeySetParam.exactlyOneFactor.at(\.keys).at(path: "keys")]
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> ActivationOutcome {
        let keys = try params.keys.domain(at: "keys")
        let signature = try readValue(params.recoverySignature, at: "recoverySignature")
        return try context.core.session {
            try $0.recover(
                registrationId: params.challenge.registrationId, challengeId: params.challenge.challengeId,
                recoverySignature: signature, keys: keys, tokenPurpose: params.tokenPurpose, caller: nil)
        }
    }
}
