/// Identity given to start onboarding: any of these identifiers, with `birthDate` optionally
/// (required with `userId`); every one given must match the same user.
public struct OnboardingCredentials: Sendable, Equatable {
    public var email: String?
    public var phoneNumber: String?
    public var loginName: String?
    public var userId: String?
    public var birthDate: String?

    public init(email: String? = nil, phoneNumber: String? = nil, loginName: String? = nil, userId: String? = nil,
                birthDate: String? = nil) {
        self.email = email
        self.phoneNumber = phoneNumber
        self.loginName = loginName
        self.userId = userId
        self.birthDate = birthDate
    }
}

/// The server's side of onboarding: processes started from identity, each with its OTP, its
/// counters and its state. Who asks (a simulated device, an app installation) holds the process id.
extension Latchkey {
    static let wdoInProgress: (String, ErrorDetail) = ("wdoReason", .string("wdo_activation_inProgress"))
    static let wdoNotRunning: (String, ErrorDetail) = ("wdoReason", .string("wdo_activation_notRunning"))
    static let wdoCannotActivate: (String, ErrorDetail) = ("wdoReason", .string("wdo_activation_cannotActivate"))

    static func notRunning(_ message: String = "No onboarding process is running") -> DomainError {
        DomainError(.onboardingNotRunning, message, [wdoNotRunning])
    }

    /// The user the credentials name, or nil (the answer to the caller is the same either way).
    func matchCredentials(_ tx: StoreTransaction, _ credentials: OnboardingCredentials) throws -> UserRecord? {
        var matched: UserRecord?
        let identifiers: [UserIdentifier] = [
            credentials.email.map(UserIdentifier.email), credentials.phoneNumber.map(UserIdentifier.phoneNumber),
            credentials.loginName.map(UserIdentifier.loginName), credentials.userId.map(UserIdentifier.userId),
        ].compactMap { $0 }
        guard !identifiers.isEmpty else { return nil }
        for identifier in identifiers {
            guard let candidate = try user(tx, matching: identifier), matched == nil || matched?.id == candidate.id else { return nil }
            matched = candidate
        }
        if let birthDate = credentials.birthDate, matched?.birthDate != birthDate { return nil }
        return matched
    }

    /// A process by id, with time-driven failure applied (nil: unknown, or closed).
    func onboardingProcess(_ tx: StoreTransaction, _ processId: String) throws -> OnboardingProcessRecord? {
        guard var process = try tx.fetch(OnboardingProcessRecord.self, id: processId), !process.closed else { return nil }
        if process.onboardingStatus == .activationInProgress, now >= process.createdAt + OnboardingProcessRecord.lifetime {
            process.status = OnboardingStatus.failed.rawValue
            try tx.save(process)
        }
        return process
    }

    /// Starts a process for whoever the credentials name; sends an OTP to a contact on file when
    /// they name someone. The same answer (and the same random draws) either way.
    func startOnboardingProcess(_ tx: StoreTransaction, _ effects: Effects, owner: String, credentials: OnboardingCredentials,
                                app: ApplicationConfig, canRestoreSession: Bool) throws -> OnboardingProcessRecord {
        let user = try matchCredentials(tx, credentials)
        var process = OnboardingProcessRecord(
            id: random.identifier("onb"), deviceId: owner, userId: user?.id, applicationId: app.applicationId,
            channel: nil, address: nil, otpHash: nil, otpExpiresAt: nil, lastSentAt: nil, wrongOtps: 0,
            status: OnboardingStatus.activationInProgress.rawValue, canRestoreSession: canRestoreSession,
            instance: instanceId, otpAccepted: false, registrationId: nil, closed: false, createdAt: now, activationName: nil)
        if let user {
            if credentials.phoneNumber != nil || user.email == nil, let phone = user.phoneNumber {
                process.channel = DeliveryChannel.sms.rawValue
                process.address = phone
            } else if let email = user.email {
                process.channel = DeliveryChannel.email.rawValue
                process.address = email
            }
        }
        try sendOnboardingOtp(tx, effects, &process)
        try audit(tx, effects, .onboardingStarted, userId: user?.id, deviceId: owner)
        return process
    }

    /// Makes a new OTP (the previous one dies) and sends it to the contact on file. A process
    /// that matched nobody draws the same random values and sends nothing.
    private func sendOnboardingOtp(_ tx: StoreTransaction, _ effects: Effects, _ process: inout OnboardingProcessRecord) throws {
        let otp = random.digits(8)
        let messageId = random.identifier("msg")
        process.otpExpiresAt = now + OnboardingProcessRecord.otpLifetime
        process.lastSentAt = now
        if let channel = process.channel.flatMap(DeliveryChannel.init(rawValue:)), let address = process.address {
            process.otpHash = try codeHash(tx, otp, purpose: "onboarding:\(process.id)")
            effects.append(.delivery(OutboundMessage(
                id: messageId, channel: channel, to: address, purpose: .onboardingOtp, code: otp,
                text: "Your activation code is \(otp). It is valid for 5 minutes.", sentAt: now)))
            try audit(tx, effects, .onboardingOtpSent, userId: process.userId, deviceId: process.deviceId, detail: channel.rawValue)
        } else {
            process.otpHash = nil
        }
        try tx.save(process)
    }

    /// Checks the OTP of a process still waiting for one; a right one lets it activate.
    /// - Throws: `onboardingFailed`, `onboardingCannotActivate`, `otpExpired` (not counted),
    ///   `otpInvalid` (counted; the fifth fails the process).
    func acceptOnboardingOtp(_ tx: StoreTransaction, _ effects: Effects, _ process: inout OnboardingProcessRecord, otp: String,
                             activationName: String?) throws {
        switch process.onboardingStatus {
        case .failed: throw DomainError(.onboardingFailed, "The onboarding process failed; start again")
        case .verificationInProgress, .finished:
            throw DomainError(.onboardingCannotActivate, "The onboarding activation is done already", [Self.wdoCannotActivate])
        case .activationInProgress: break
        }
        guard now < (process.otpExpiresAt ?? 0) else {
            throw DomainError(.otpExpired, "The OTP has expired; ask for a new one")
        }
        let given = try codeHash(tx, otp, purpose: "onboarding:\(process.id)")
        guard let expected = process.otpHash, SecretHash.constantTimeEquals(given, expected) else {
            process.wrongOtps += 1
            let remaining = max(OnboardingProcessRecord.maxWrongOtps - process.wrongOtps, 0)
            try audit(tx, effects, .onboardingOtpRejected, userId: process.userId, deviceId: process.deviceId)
            if remaining == 0 {
                process.status = OnboardingStatus.failed.rawValue
                try audit(tx, effects, .onboardingFailed, userId: process.userId, deviceId: process.deviceId, detail: "otp")
            }
            try tx.save(process)
            throw DomainError(.otpInvalid, "The OTP is not valid",
                              [("allowOtpRetry", .bool(remaining > 0)), ("remainingAttempts", .int(remaining))])
        }
        process.otpAccepted = true
        process.otpHash = nil
        process.activationName = activationName
        try tx.save(process)
        try audit(tx, effects, .onboardingActivated, userId: process.userId, deviceId: process.deviceId, activationName: activationName)
    }

    /// Sends a new OTP (the previous one dies; wrong tries are not reset).
    /// - Throws: `onboardingFailed`, `resendLimited`.
    func resendOnboardingOtp(_ tx: StoreTransaction, _ effects: Effects, _ process: inout OnboardingProcessRecord) throws {
        guard process.onboardingStatus == .activationInProgress else {
            throw DomainError(.onboardingFailed, "The onboarding process is not waiting for an OTP")
        }
        if let last = process.lastSentAt, now < last + OnboardingProcessRecord.resendInterval {
            throw DomainError(.resendLimited, "An OTP was sent less than 30 seconds ago",
                              [("retryAfterSeconds", .int(Int(last + OnboardingProcessRecord.resendInterval - now)))])
        }
        try sendOnboardingOtp(tx, effects, &process)
    }

    /// Ends a process that is still running (removing the registration waiting for verification).
    /// - Throws: `onboardingFailed` (failed or expired), `onboardingNotRunning` (finished).
    func cancelOnboardingProcess(_ tx: StoreTransaction, _ effects: Effects, _ process: OnboardingProcessRecord, forced: Bool) throws {
        switch process.onboardingStatus {
        case .failed: throw DomainError(.onboardingFailed, "The onboarding process failed already")
        case .finished: throw Self.notRunning("The onboarding process is finished")
        case .activationInProgress, .verificationInProgress: break
        }
        var process = process
        process.closed = true
        try tx.save(process)
        if let registrationId = process.registrationId, var registration = try tx.fetch(RegistrationRecord.self, id: registrationId),
           registration.registrationState == .verificationPending {
            registration.state = RegistrationState.removed.rawValue
            try tx.save(registration)
            try revokeTokens(tx, registrationId: registrationId)
        }
        try audit(tx, effects, .onboardingCancelled, userId: process.userId, deviceId: process.deviceId, detail: forced ? "forced" : nil)
    }

    /// The process behind an onboarding activation, if it may still activate.
    func activatableOnboardingProcess(_ tx: StoreTransaction, _ processId: String) throws -> OnboardingProcessRecord {
        guard let process = try tx.fetch(OnboardingProcessRecord.self, id: processId), !process.closed, process.otpAccepted,
              process.onboardingStatus == .activationInProgress, now < process.createdAt + OnboardingProcessRecord.lifetime,
              process.userId != nil else {
            throw DomainError(.onboardingFailed, "The onboarding process can no longer activate")
        }
        return process
    }

    /// Records that onboarding made its registration (now waiting for verification).
    func onboardingActivated(_ tx: StoreTransaction, _ effects: Effects, _ process: OnboardingProcessRecord,
                             registrationId: String) throws {
        var process = process
        process.status = OnboardingStatus.verificationInProgress.rawValue
        process.registrationId = registrationId
        try tx.save(process)
    }

    /// Ends identity verification: approved → usable; rejected → the registration is removed.
    /// - Throws: `notFound` (registration, user).
    public func completeVerification(_ target: VerificationTarget, approved: Bool) throws -> OnboardingStatus {
        try transact { tx, effects in
            var registration: RegistrationRecord
            switch target {
            case .registration(let registrationId):
                registration = try self.registration(tx, registrationId)
            case .user(let userId):
                _ = try user(tx, userId)
                guard let pending = try tx.fetchAll(RegistrationRecord.self, where: [
                    .equals("userId", userId), .equals("state", RegistrationState.verificationPending.rawValue),
                ], newestFirst: true, limit: 1).first else { throw DomainError.notFound("registration") }
                registration = pending
            }
            guard registration.registrationState == .verificationPending else {
                throw DomainError(.notFound, "The registration is not waiting for verification", [("kind", .string("registration"))])
            }
            registration.state = (approved ? RegistrationState.active : .removed).rawValue
            try tx.save(registration)
            if !approved { try revokeTokens(tx, registrationId: registration.id) }
            let status: OnboardingStatus = approved ? .finished : .failed
            for var process in try tx.fetchAll(OnboardingProcessRecord.self, where: [.equals("registrationId", registration.id)]) {
                process.status = status.rawValue
                try tx.save(process)
            }
            try audit(tx, effects, .verificationCompleted, userId: registration.userId, registrationId: registration.id,
                      detail: approved ? "approved" : "rejected")
            return status
        }
    }
}

/// Whose identity verification ends: a user's newest pending registration, or one registration.
public enum VerificationTarget: Sendable {
    case user(String)
    case registration(String)
}
