import LatchkeyContract
import LatchkeyDevice
import LatchkeyServer
import LatchkeyWire

/// `device/changeBiometricEnrolment`: a finger or a face added or enrolled again on a simulated
/// phone, which destroys its biometric keys (they are bound to the enrolment).
enum DeviceChangeBiometricEnrolment: DeviceCall {
    static let declaration = MethodDeclaration(
        "device/changeBiometricEnrolment", "A finger or a face added or enrolled again: the device destroys its touchId and faceId keys.",
        description: """
            Stands for a finger or a face added or enrolled again on the simulated phone: its touchId and faceId keys are \
            bound to the enrolled biometrics, so it destroys them and answers the methods whose keys it destroyed. The next \
            authentication/finish (or authMethod/finishAddOrUpdate proving the user) with such a method answers \
            biometryKeyInvalidated: nothing counts, and the device deactivates the method on the server with a device \
            authentication. authentication/start never proposes it; a PIN adds it again (authMethod/startAddOrUpdate, \
            authMethod/finishAddOrUpdate). A device without biometry answers biometryUnavailable.
            """,
        errors: [.notFound, .biometryUnavailable])
    static let result = Codec.member("invalidatedAuthMethods", .authMethods)
    static func call(_ device: Device) throws -> [AuthMethod] { try device.changeBiometricEnrolment() }
}
