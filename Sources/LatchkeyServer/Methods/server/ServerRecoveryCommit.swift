import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum ServerRecoveryCommit: RPCMethod {
    static let declaration = MethodDeclaration(
        "server/recovery/commit", "Recovers the registration onto new keys with the recovery key's signature.",
        description: """
            keys are device and exactly one two-factor method, each with its proof (operation recover). A failing \
            recoverySignature counts against the 5 recovery attempts (recoveryCodeInvalid, then recoveryLocked); success \
            consumes the recovery key and re-keys the registration, so the old device's keys stop working.
            """,
        errors: ServerFamily.challengeErrors + [.recoveryNotActivated, .recoveryLocked, .recoveryCodeInvalid, .authMethodNotAllowed, .proofInvalid])
    struct Params: WireParams {
        let challenge: ServerFamily.ChallengeParams
        let recoverySignature: Signature
        let keys: KeySetParam
        let tokenPurpose: TokenPurpose
        static let wire = (
            challenge: WireMember.inline(ServerFamily.ChallengeParams.self),
            recoverySignature: WireMember.required("recoverySignature", Codec.signature, "role recovery, operation recover"),
            keys: WireMember.required("keys", .object(KeySetParam.self), "device and exactly one two-factor method"),
            tokenPurpose: WireMember.tokenPurpose
        )
        static let rules: [WireRule<Self>] = [KeySetParam.exactlyOneFactor.at(\.keys).at(path: "keys")]
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> CommittedRecovery {
        let keys = params.keys.domain
        let signature = params.recoverySignature
        return CommittedRecovery(
            outcome: try context.core.session {
                try $0.recover(
                    registrationId: params.challenge.registrationId, challengeId: params.challenge.challengeId,
                    recoverySignature: signature, keys: keys, tokenPurpose: params.tokenPurpose, caller: nil)
            })
    }
}
