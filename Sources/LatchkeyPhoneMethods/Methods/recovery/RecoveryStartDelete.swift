import LatchkeyContract
import LatchkeyCore
import LatchkeyServer
import LatchkeySimulator

enum RecoveryStartDelete: RecoveryFamily.TokenStart {
    static let declaration = MethodDeclaration(
        "recovery/startDelete", "Opens deleting the recovery method, authorised by a deleteRecovery token.",
        description: """
            Opens deleting the backup recovery method, authorised by a single-use token of purpose deleteRecovery. \
            Follow with recovery/finishDelete.
            """,
        errors: [.notFound, .notActivatedLocally, .recoveryNotActivated] + CommonErrors.registrationState + CommonErrors.token)
    static let purpose = TokenPurpose.deleteRecovery
}
