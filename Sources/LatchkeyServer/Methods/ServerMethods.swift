/// The server's methods, in the order the OpenRPC document lists them; the executable composes them with the simulated phone's
/// (LatchkeyPhoneMethods' `PhoneMethods.groups`, placed after `audit/list` and `passkey/remove`) into one `MethodTable`.
public enum ServerMethods {
    /// One `Methods/<family>/<TypeName>.swift` a method; add a new one here, where the document should list it.
    // Concrete types here, so each entry's decoding and encoding is specialised (no generic
    // metadata lookups per call).
    public static let entries: [MethodEntry] = [
        .init(RpcDiscover.self), .init(Ping.self), .init(ServerInfo.self), .init(EventsSubscribe.self),
        .init(EventsUnsubscribe.self), .init(ClockNow.self), .init(ClockAdvance.self), .init(DeliveryList.self),
        .init(DeliveryOpen.self), .init(AdminConfigureApplication.self), .init(AdminConfigureServer.self),
        .init(AdminCreateUser.self), .init(AdminCreateActivationCode.self), .init(AdminGetRegistration.self),
        .init(AdminListRegistrations.self), .init(AdminRemoveRegistration.self), .init(AdminLockRegistration.self),
        .init(AdminUnlockRegistration.self), .init(AdminPushAuthentication.self), .init(AdminGetAuthentication.self),
        .init(AdminCompleteVerification.self), .init(AdminConfigureCallback.self), .init(AdminListCallbacks.self),
        .init(AdminRemoveCallback.self), .init(AdminListCallbackDeliveries.self), .init(AdminRetryCallbackDelivery.self),
        .init(AdminConfigureOperationTemplate.self), .init(AdminCreateOperation.self), .init(AdminGetOperation.self),
        .init(AdminListOperations.self), .init(AdminCancelOperation.self), .init(AdminOperationQrCode.self),
        .init(AdminVerifyOfflineOperation.self), .init(AuditList.self), .init(UserLogin.self),
        .init(UserLogout.self), .init(UserGet.self), .init(UserPasskeys.self), .init(AccountRecoveryStart.self),
        .init(AccountRecoveryStatus.self), .init(AccountRecoveryCancel.self), .init(AccountRecoveryResetPassword.self),
        .init(ResetRequestAccountRecovery.self), .init(ResetRequestPasswordReset.self), .init(ResetUpdatePassword.self),
        .init(ResetResetPasskeys.self), .init(ResetPasskeyCreationOptions.self),
        .init(PasskeyCreationOptions.self), .init(PasskeyCreate.self), .init(PasskeyRequestOptions.self), .init(PasskeyLogin.self),
        .init(PasskeyRemove.self), .init(OperationPasskeyOptions.self), .init(OperationPasskeyApprove.self),
        .init(ServerActivationPrepare.self), .init(ServerActivationCommit.self),
        .init(ServerAuthenticationChallenge.self), .init(ServerAuthenticationCancel.self), .init(ServerAuthenticationVerify.self),
        .init(ServerAuthMethodAdd.self), .init(ServerAuthMethodRemove.self), .init(ServerRegistrationStatus.self),
        .init(ServerRegistrationRemove.self), .init(ServerRecoverySet.self), .init(ServerRecoveryDelete.self),
        .init(ServerRecoveryChallenge.self), .init(ServerRecoveryCommit.self), .init(ServerOnboardingStart.self),
        .init(ServerOnboardingStatus.self), .init(ServerOnboardingResendOtp.self), .init(ServerOnboardingCancel.self),
        .init(ServerOnboardingActivate.self), .init(ServerOperationList.self), .init(ServerOperationChallenge.self),
        .init(ServerOperationApprove.self), .init(ServerOperationReject.self),
    ]
}
