import LatchkeyDevice
import LatchkeyServer

enum AuthMethodStartAddOrUpdate: DeviceCall {
    static let declaration = MethodDeclaration(
        "authMethod/startAddOrUpdate", "Opens an add-or-update of an auth method.",
        description: """
            Opens adding or updating an auth method (a new PIN, a biometric method): answers what authentication/start \
            answers plus the methods the user may activate. Follow with authMethod/finishAddOrUpdate.
            """,
        errors: [.notFound, .notActivatedLocally] + CommonErrors.registrationState)
    typealias Result = AddOrUpdateOffer
    static func call(_ device: Device) throws -> AddOrUpdateOffer { try device.startAddOrUpdate() }
}
