import LatchkeyContract
import LatchkeyDevice
import LatchkeyServer
import LatchkeySimulator

enum RecoveryStartAddOrUpdate: RecoveryFamily.TokenStart {
    static let declaration = MethodDeclaration(
        "recovery/startAddOrUpdate", "Opens setting the recovery code, authorised by an addOrUpdateRecovery token.",
        description: """
            Opens setting or replacing the backup recovery code on an activated device, authorised by a single-use \
            token of purpose addOrUpdateRecovery (from an authentication/finish or activation/finish). Follow with \
            recovery/finishAddOrUpdate.
            """,
        errors: [.notFound, .notActivatedLocally] + CommonErrors.registrationState + CommonErrors.token)
    static let purpose = TokenPurpose.addOrUpdateRecovery
}
