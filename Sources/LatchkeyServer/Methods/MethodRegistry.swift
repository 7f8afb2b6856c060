/// Every method of the contract, in the order the OpenRPC document lists them.
enum MethodRegistry {
    /// The methods as the dispatch table and the documents hold them. One `Methods/<family>/<WireName>.swift`
    /// a method; add a new one here, where the document should list it.
    // Concrete types here, so each entry's decoding and encoding is specialised (no generic
    // metadata lookups per call).
    static let entries: [MethodEntry] = [
        .init(RpcDiscover.self), .init(Ping.self), .init(ServerInfo.self), .init(EventsSubscribe.self),
        .init(EventsUnsubscribe.self), .init(ClockNow.self), .init(ClockAdvance.self), .init(DeliveryList.self),
        .init(DeliveryOpen.self), .init(AdminConfigureApplication.self), .init(AdminConfigureServer.self),
        .init(AdminCreateUser.self), .init(AdminCreateActivationCode.self), .init(AdminGetRegistration.self),
        .init(AdminListRegistrations.self), .init(AdminRemoveRegistration.self), .init(AdminLockRegistration.self),
        .init(AdminUnlockRegistration.self), .init(AdminPushAuthentication.self), .init(AdminGetAuthentication.self),
        .init(AdminCompleteVerification.self), .init(AdminConfigureCallback.self), .init(AdminListCallbacks.self),
        .init(AdminRemoveCallback.self), .init(AdminListCallbackDeliveries.self), .init(AdminRetryCallbackDelivery.self),
        .init(AuditList.self), .init(DeviceCreate.self),
        .init(DeviceSetBiometricOutcome.self), .init(DeviceChangeBiometricEnrolment.self), .init(DeviceIsActivatedLocally.self),
        .init(DeviceRegistrationId.self),
        .init(DeviceIsRecoveryActivated.self), .init(DeviceActivatedRecoveryMethods.self), .init(DeviceBackup.self),
        .init(DeviceRestore.self), .init(ConfigLoad.self), .init(PinValidate.self), .init(ActivationStart.self),
        .init(ActivationFinish.self), .init(AuthenticationStart.self), .init(AuthenticationFinish.self),
        .init(AuthMethodStartAddOrUpdate.self), .init(AuthMethodFinishAddOrUpdate.self), .init(AuthMethodDeactivate.self),
        .init(RegistrationDeactivate.self), .init(SessionCancel.self), .init(RecoveryGenerateCode.self),
        .init(RecoveryStartAddOrUpdate.self), .init(RecoveryFinishAddOrUpdate.self), .init(RecoveryStart.self),
        .init(RecoveryFinish.self), .init(RecoveryStartDelete.self), .init(RecoveryFinishDelete.self), .init(UserLogin.self),
        .init(UserLogout.self), .init(UserGet.self), .init(UserPasskeys.self), .init(AccountRecoveryStart.self),
        .init(AccountRecoveryStatus.self), .init(AccountRecoveryCancel.self), .init(AccountRecoveryResetPassword.self),
        .init(ResetRequestAccountRecovery.self), .init(ResetRequestPasswordReset.self), .init(ResetUpdatePassword.self),
        .init(ResetResetPasskeys.self), .init(ResetPasskeyCreationOptions.self),
        .init(PasskeyCreationOptions.self), .init(PasskeyCreate.self), .init(PasskeyRequestOptions.self), .init(PasskeyLogin.self),
        .init(PasskeyRemove.self), .init(DevicePasskeyCreate.self), .init(DevicePasskeyGet.self), .init(OnboardingStart.self),
        .init(OnboardingHasActiveProcess.self),
        .init(OnboardingStatus.self), .init(OnboardingActivate.self), .init(OnboardingResendOtp.self),
        .init(OnboardingCancel.self), .init(ServerActivationPrepare.self), .init(ServerActivationCommit.self),
        .init(ServerAuthenticationChallenge.self), .init(ServerAuthenticationCancel.self), .init(ServerAuthenticationVerify.self),
        .init(ServerAuthMethodAdd.self), .init(ServerAuthMethodRemove.self), .init(ServerRegistrationStatus.self),
        .init(ServerRegistrationRemove.self), .init(ServerRecoverySet.self), .init(ServerRecoveryDelete.self),
        .init(ServerRecoveryChallenge.self), .init(ServerRecoveryCommit.self), .init(ServerOnboardingStart.self),
        .init(ServerOnboardingStatus.self), .init(ServerOnboardingResendOtp.self), .init(ServerOnboardingCancel.self),
        .init(ServerOnboardingActivate.self),
    ]

    private static let table: [String: MethodEntry] = Dictionary(entries.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })

    static func entry(named name: String) -> MethodEntry? { table[name] }
}
