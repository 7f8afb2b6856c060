/// The simulated device's side of onboarding, as the seed's `WDOActivationService` keeps it: the
/// device remembers its process (`hasActiveProcess`) until `cancel` clears it or `status` reports
/// it finished or failed, whatever became of it on the server meanwhile.
extension Latchkey {
    /// The device's process id; without `canRestoreSession` a process lives only in the Latchkey
    /// process that started it (an app restart forgets it).
    private func deviceProcessId(_ keychain: DeviceKeychain) throws -> String? {
        guard let processId = try keychain.string(.onboardingProcessId) else { return nil }
        if let instance = try keychain.string(.onboardingInstance), instance != instanceId {
            try forgetOnboarding(keychain)
            return nil
        }
        return processId
    }

    private func forgetOnboarding(_ keychain: DeviceKeychain) throws {
        try keychain.remove(.onboardingProcessId)
        try keychain.remove(.onboardingInstance)
    }

    /// The device's process id.
    /// - Throws: `notFound` (device), `onboardingNotRunning` (the device has none).
    private func requireDeviceProcess(_ tx: StoreTransaction, deviceId: String) throws -> (DeviceKeychain, String) {
        _ = try device(tx, deviceId)
        let keychain = DeviceKeychain(tx: tx, deviceId: deviceId)
        guard let processId = try deviceProcessId(keychain) else {
            throw Self.notRunning("No onboarding process runs on this device")
        }
        return (keychain, processId)
    }

    /// The server's process behind the device's id.
    /// - Throws: `onboardingNotRunning` (unknown on the server).
    private func serverProcess(_ tx: StoreTransaction, _ processId: String) throws -> OnboardingProcessRecord {
        guard let process = try onboardingProcess(tx, processId) else { throw Self.notRunning() }
        return process
    }

    /// Starts onboarding from identity; the same answer whether or not it matches a user.
    /// - Throws: `notFound` (device, application), `onboardingCannotActivate` (activated),
    ///   `onboardingInProgress` (the device has a process).
    public func startOnboarding(deviceId: String, credentials: OnboardingCredentials, applicationId: String?,
                                canRestoreSession: Bool) throws {
        try transact { tx, effects in
            _ = try device(tx, deviceId)
            let keychain = DeviceKeychain(tx: tx, deviceId: deviceId)
            if try keychain.get(.registrationId) != nil {
                throw DomainError(.onboardingCannotActivate, "This device is activated already", [Self.wdoCannotActivate])
            }
            let app = try application(tx, applicationId)
            if try deviceProcessId(keychain) != nil {
                throw DomainError(.onboardingInProgress, "An onboarding process runs on this device already", [Self.wdoInProgress])
            }
            let process = try startOnboardingProcess(tx, effects, owner: deviceId, credentials: credentials, app: app,
                                                     canRestoreSession: canRestoreSession)
            try keychain.set(.onboardingProcessId, process.id)
            if !canRestoreSession { try keychain.set(.onboardingInstance, instanceId) }
        }
    }

    /// Whether the device has a process (its own flag: no server call).
    public func hasActiveOnboarding(deviceId: String) throws -> Bool {
        try transact { tx, _ in
            _ = try device(tx, deviceId)
            return try deviceProcessId(DeviceKeychain(tx: tx, deviceId: deviceId)) != nil
        }
    }

    /// The device's process as the server sees it (`failed` when the server no longer knows it).
    /// A finished or failed process ends the device's.
    /// - Throws: `onboardingNotRunning` (the device has none).
    public func onboardingStatus(deviceId: String) throws -> OnboardingStatus {
        try transact { tx, _ in
            let (keychain, processId) = try requireDeviceProcess(tx, deviceId: deviceId)
            let status = try onboardingProcess(tx, processId)?.onboardingStatus ?? .failed
            if status == .finished || status == .failed { try forgetOnboarding(keychain) }
            return status
        }
    }

    /// Checks the OTP; a right one opens the activation (finished by `activation/finish`).
    /// - Throws: `onboardingNotRunning`, `onboardingFailed`, `onboardingCannotActivate`,
    ///   `otpExpired` (not counted), `otpInvalid` (counted; the fifth fails the process).
    public func activateOnboarding(deviceId: String, otp: String, activationName: String?) throws -> ActivationOffer {
        try transact { tx, effects in
            let (keychain, processId) = try requireDeviceProcess(tx, deviceId: deviceId)
            var process = try serverProcess(tx, processId)
            if process.onboardingStatus == .activationInProgress, try keychain.get(.registrationId) != nil {
                throw DomainError(.onboardingCannotActivate, "This device is activated already", [Self.wdoCannotActivate])
            }
            try acceptOnboardingOtp(tx, effects, &process, otp: otp, activationName: activationName)
            try startSession(tx, deviceId: deviceId, kind: .activation, registration: nil, onboardingProcessId: process.id)
            return offer(try application(tx, process.applicationId), try device(tx, deviceId))
        }
    }

    /// Sends a new OTP (the previous one dies; wrong tries are not reset).
    /// - Throws: `onboardingNotRunning`, `onboardingFailed`, `resendLimited`.
    public func resendOnboardingOtp(deviceId: String) throws {
        try transact { tx, effects in
            var process = try serverProcess(tx, try requireDeviceProcess(tx, deviceId: deviceId).1)
            try resendOnboardingOtp(tx, effects, &process)
        }
    }

    /// Cancels the device's process: the server first; where it cannot (the process failed,
    /// expired, finished or is unknown there), `forceCancel` clears the device's process anyway,
    /// else the server's answer stands and the device keeps its process. The device keeps a local
    /// activation (which then answers `registrationRemoved`).
    /// - Throws: `onboardingNotRunning`, and without `forceCancel` `onboardingFailed`.
    public func cancelOnboarding(deviceId: String, forceCancel: Bool) throws {
        try transact { tx, effects in
            let (keychain, processId) = try requireDeviceProcess(tx, deviceId: deviceId)
            do {
                try cancelOnboardingProcess(tx, effects, try serverProcess(tx, processId), forced: forceCancel)
                if let session = try tx.fetch(OperationSessionRecord.self, id: deviceId), session.onboardingProcessId == processId {
                    try tx.delete(OperationSessionRecord.self, id: deviceId)
                }
            } catch let refused as DomainError where forceCancel {
                _ = refused
            }
            try forgetOnboarding(keychain)
        }
    }
}
