import LatchkeyContract
import LatchkeyDevice
import LatchkeyServer
import LatchkeyWire

enum OperationList: DeviceCall {
    static let declaration = MethodDeclaration(
        "operation/list", "The pending operations the simulated phone's inbox shows, oldest first.",
        description: """
            Every pending operation of the registration's user and application not bound to another registration, whatever the \
            methods that may approve it, oldest first. A registration that is not active answers its state's error, as \
            authentication/start does.
            """,
        errors: [.notFound, .notActivatedLocally] + CommonErrors.registrationState)
    typealias Result = ListedOperations
    static func call(_ device: Device) throws -> ListedOperations {
        ListedOperations(operations: try device.operations())
    }
}
