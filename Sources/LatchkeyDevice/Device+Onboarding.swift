import LatchkeyContract

/// Onboarding as the seed's `WDOActivationService` keeps it on the phone: the device remembers
/// its process (`hasActiveProcess`) until `cancel` clears it or `status` reports it finished or
/// failed, whatever became of it on the server meanwhile.
extension Device {
    private static let cannotActivate = DomainError(
        .onboardingCannotActivate, "This device is activated already",
        [WDOReason.cannotActivate.detail])

    /// The device's process id; one started without `canRestoreSession` by another instance of
    /// the app is forgotten.
    private func processId() throws -> String? {
        guard let processId = try storage.string(.onboardingProcessId) else { return nil }
        if let started = try storage.string(.onboardingInstance), started != instance {
            // A new start of the app forgets the process; the server is told, as far as it can be.
            _ = try? server.cancelOnboarding(processId: processId, caller: caller)
            try storage.wipe(.onboarding)
            return nil
        }
        return processId
    }

    /// - Throws: `onboardingNotRunning` (the device has no process).
    private func requireProcess() throws -> String {
        guard let processId = try processId() else {
            throw DomainError(
                .onboardingNotRunning, "No onboarding process runs on this device",
                [WDOReason.notRunning.detail])
        }
        return processId
    }

    /// Starts onboarding from identity; the same answer whether or not it names a user.
    /// - Throws: `onboardingCannotActivate` (activated), `onboardingInProgress` (the device has a
    ///   process), and the server's answers.
    public func startOnboarding(credentials: OnboardingCredentials, applicationId: String?, canRestoreSession: Bool) throws {
        if try isActivatedLocally { throw Self.cannotActivate }
        if try processId() != nil {
            throw DomainError(
                .onboardingInProgress, "An onboarding process runs on this device already",
                [WDOReason.inProgress.detail])
        }
        let processId = try server.startOnboarding(credentials: credentials, applicationId: applicationId, caller: caller)
        try storage.set(.onboardingProcessId, processId)
        try storage.set(.onboardingInstance, canRestoreSession ? nil : instance)
    }

    /// Whether the device has a process (its own flag: no server call).
    public var hasActiveOnboarding: Bool { get throws { try processId() != nil } }

    /// The process as the server sees it (`failed` when the server no longer knows it).
    ///
    /// A finished or failed process ends the device's.
    /// - Throws: `onboardingNotRunning` (the device has none).
    public func onboardingStatus() throws -> OnboardingStatus {
        let processId = try requireProcess()
        let status: OnboardingStatus
        do {
            status = try server.onboardingStatus(processId: processId)
        } catch let answer as DomainError where answer.reason == .onboardingNotRunning {
            status = .failed
        }
        if status == .finished || status == .failed { try storage.wipe(.onboarding) }
        return status
    }

    /// Checks the OTP; a right one opens the activation, which `finishActivation` completes
    /// (`activationName` names the registration unless the finish names it again).
    public func activateOnboarding(otp: String, activationName: String?) throws -> ActivationOffer {
        let processId = try requireProcess()
        if try isActivatedLocally { throw Self.cannotActivate }
        let prepared = try server.activateOnboarding(processId: processId, otp: otp, caller: caller)
        return try openActivation(prepared, name: activationName, processId: processId)
    }

    /// Sends a new OTP.
    public func resendOnboardingOtp() throws {
        try server.resendOnboardingOtp(processId: try requireProcess())
    }

    /// Cancels the process: the server first; where it cannot (the process failed, expired, finished or is unknown there), `forceCancel` clears the
    /// device's process anyway, else the server's answer stands and the device keeps its process.
    ///
    /// The device keeps a local activation (which then answers `registrationRemoved`).
    public func cancelOnboarding(forceCancel: Bool) throws {
        let processId = try requireProcess()
        do {
            try server.cancelOnboarding(processId: processId, caller: caller)
        } catch let answer as DomainError where forceCancel && answer.reason != .invalidParams {
            _ = answer
        }
        if try storage.pendingOperation()?.processId == processId { try storage.setPendingOperation(nil) }
        try storage.wipe(.onboarding)
    }
}
