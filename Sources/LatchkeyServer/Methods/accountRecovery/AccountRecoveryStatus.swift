import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum AccountRecoveryStatus: SessionCall {
    static let declaration = MethodDeclaration(
        "accountRecovery/status", "The status and the settings-screen copy for it.",
        description: """
            Reads the account-recovery status (state, reason, start and end times) with the settings-screen copy for \
            it (title, subtitle, whether it can be cancelled). Due transitions are applied first.
            """,
        errors: [.userSessionInvalid])
    struct Result: WireObject {
        var accountRecovery: LatchkeyCore.AccountRecoveryStatus?
        var settingsItem: SettingsItem
        static let fields: [WireField<Self>] = [
            .nullable("accountRecovery", \.accountRecovery, .object(LatchkeyCore.AccountRecoveryStatus.self)),
            .required("settingsItem", \.settingsItem, .object(SettingsItem.self)),
        ]
    }
    static func call(_ core: Latchkey, sessionId: String) throws -> Result {
        let (status, item) = try core.accountRecoveryStatus(sessionId: sessionId)
        return Result(accountRecovery: status, settingsItem: item)
    }
}
