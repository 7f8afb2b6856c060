import LatchkeyContract
import LatchkeyCore
import LatchkeyServer
import LatchkeySimulator

/// The methods that drive a simulated phone, in the order the OpenRPC document lists them: the executable adds them to the server's
/// (`MethodTable(ServerMethods.entries, adding: PhoneMethods.groups)`) and hands the server `passkeyAuthenticator`.
public enum PhoneMethods {
    /// One `Methods/<family>/<TypeName>.swift` a method; add a new one here, where the document should list it.
    // Concrete types here, so each entry's decoding and encoding is specialised.
    public static let groups: [MethodGroup] = [
        MethodGroup(
            after: "audit/list",
            [
                .init(DeviceCreate.self), .init(DeviceSetBiometricOutcome.self), .init(DeviceChangeBiometricEnrolment.self),
                .init(DeviceIsActivatedLocally.self), .init(DeviceRegistrationId.self), .init(DeviceIsRecoveryActivated.self),
                .init(DeviceActivatedRecoveryMethods.self), .init(DeviceBackup.self), .init(DeviceRestore.self), .init(ConfigLoad.self),
                .init(PinValidate.self), .init(ActivationStart.self), .init(ActivationFinish.self), .init(AuthenticationStart.self),
                .init(AuthenticationFinish.self), .init(AuthMethodStartAddOrUpdate.self), .init(AuthMethodFinishAddOrUpdate.self),
                .init(AuthMethodDeactivate.self), .init(RegistrationDeactivate.self), .init(SessionCancel.self),
                .init(RecoveryGenerateCode.self), .init(RecoveryStartAddOrUpdate.self), .init(RecoveryFinishAddOrUpdate.self),
                .init(RecoveryStart.self), .init(RecoveryFinish.self), .init(RecoveryStartDelete.self), .init(RecoveryFinishDelete.self),
            ]),
        MethodGroup(
            after: "passkey/remove",
            [
                .init(DevicePasskeyCreate.self), .init(DevicePasskeyGet.self), .init(OnboardingStart.self),
                .init(OnboardingHasActiveProcess.self), .init(OnboardingStatus.self), .init(OnboardingActivate.self),
                .init(OnboardingResendOtp.self), .init(OnboardingCancel.self),
            ]),
        MethodGroup(
            after: "operation/passkeyApprove",
            [.init(OperationList.self), .init(OperationApprove.self), .init(OperationReject.self), .init(OperationOfflineApprove.self)]),
    ]

    /// Makes `reset/resetPasskeys`' new passkey on a simulated phone.
    public static let passkeyAuthenticator: any ResetPasskeyAuthenticator = SimulatedPasskeyAuthenticator()
}

extension CallContext {
    /// The simulated phones, on the system (made on first use, one a process).
    var devices: SimulatedDevices { get throws { try attachment { try SimulatedDevices(core: $0) } } }
}

/// The simulated phone making a reset's new passkey: its browser half picks the default origin on the options' RP id, its platform
/// authenticator makes the credential, in the transaction the server verifies it in.
struct SimulatedPasskeyAuthenticator: ResetPasskeyAuthenticator {
    func inTransaction<T>(
        onDevice deviceId: String, reading reads: [StoreRead], _ context: CallContext,
        _ body: (ServerSession, _ makePasskey: (CredentialCreationOptions) throws -> RegistrationResponse) throws -> T
    ) throws -> T {
        try context.devices.withDevice(deviceId, reading: reads) { device, session in
            try body(session) { options in
                let origin = try SimulatedBrowser.origin(nil, rpId: options.rpId) { try session.defaultPasskeyOrigin(rpId: $0) }
                return try SimulatedBrowser.create(options, origin: origin, on: device)
            }
        }
    }
}
