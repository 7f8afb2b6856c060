import LatchkeyDevice
import LatchkeyServer
import LatchkeySimulator

enum RecoveryStart: DeviceCall {
    static let declaration = MethodDeclaration(
        "recovery/start", "Opens a recovery on a device restored from backup.",
        description: """
            Opens a recovery on a device restored from a backup that carries recovery data: answers the auth methods \
            it may activate and the PIN policy. Five wrong codes lock recovery for the registration. Follow with \
            recovery/finish.
            """,
        errors: [.notFound, .alreadyActivated, .recoveryNotActivated, .recoveryLocked] + CommonErrors.registrationState)
    typealias Result = ActivationOffer
    static func call(_ device: Device) throws -> ActivationOffer { try device.startRecovery() }
}
