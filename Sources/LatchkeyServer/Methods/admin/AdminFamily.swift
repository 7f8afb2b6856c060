import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

/// What the `admin/` methods share.
enum AdminFamily {
    /// An operator's change to one registration: remove, lock or unlock.
    protocol RegistrationChange: RPCMethod where Params == RegistrationParams, Result == RegistrationInfo {
        static var change: AdminRegistrationChange { get }
    }
}

extension AdminFamily.RegistrationChange {
    static func handle(_ params: RegistrationParams, _ context: CallContext) throws -> RegistrationInfo {
        try context.core.changeRegistration(params.registrationId, change)
    }
}
