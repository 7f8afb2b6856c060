/// Identity given to start onboarding: any of these; every one given must match the same user.
public struct OnboardingCredentials: Sendable {
    public var email: String?
    public var phoneNumber: String?
    public var userId: String?
    public var birthDate: String?

    public init(email: String? = nil, phoneNumber: String? = nil, userId: String? = nil, birthDate: String? = nil) {
        self.email = email
        self.phoneNumber = phoneNumber
        self.userId = userId
        self.birthDate = birthDate
    }
}

/// Whose identity verification ends: a user's newest pending registration, or one registration.
public enum VerificationTarget: Sendable {
    case user(String)
    case registration(String)
}

extension Latchkey {
    static let wdoInProgress: (String, ErrorDetail) = ("wdoReason", .string("wdo_activation_inProgress"))
    static let wdoNotRunning: (String, ErrorDetail) = ("wdoReason", .string("wdo_activation_notRunning"))
    static let wdoCannotActivate: (String, ErrorDetail) = ("wdoReason", .string("wdo_activation_cannotActivate"))

    /// The user the credentials name, or nil (the answer to the caller is the same either way).
    func matchCredentials(_ tx: StoreTransaction, _ credentials: OnboardingCredentials) throws -> UserRecord? {
        var matched: UserRecord?
        func agree(_ candidate: UserRecord?) -> Bool {
            guard let candidate else { return false }
            if let matched, matched.id != candidate.id { return false }
            matched = candidate
            return true
        }
        guard credentials.email != nil || credentials.phoneNumber != nil || credentials.userId != nil else { return nil }
        if let email = credentials.email, !agree(try userByEmail(tx, email)) { return nil }
        if let phone = credentials.phoneNumber, !agree(try tx.first(UserRecord.self, where: [.equals("phoneNumber", phone)])) {
            return nil
        }
        if let userId = credentials.userId {
            guard credentials.birthDate != nil, agree(try tx.fetch(UserRecord.self, id: userId)) else { return nil }
        }
        if let birthDate = credentials.birthDate, matched?.birthDate != birthDate { return nil }
        return matched
    }

    /// The device's open onboarding process, with time-driven failure applied.
    func currentOnboarding(_ tx: StoreTransaction, deviceId: String) throws -> OnboardingProcessRecord? {
        guard var process = try tx.fetchAll(OnboardingProcessRecord.self, where: [
            .equals("deviceId", deviceId), .equals("closed", false),
        ], newestFirst: true, limit: 1).first else { return nil }
        if !process.canRestoreSession, process.instance != instanceId { return nil }
        if process.onboardingStatus == .activationInProgress, now >= process.createdAt + OnboardingProcessRecord.lifetime {
            process.status = OnboardingStatus.failed.rawValue
            try tx.save(process)
        }
        return process
    }

    func runningOnboarding(_ tx: StoreTransaction, deviceId: String) throws -> OnboardingProcessRecord {
        _ = try device(tx, deviceId)
        guard let process = try currentOnboarding(tx, deviceId: deviceId) else {
            throw DomainError(.onboardingNotRunning, "No onboarding process runs on this device", [Self.wdoNotRunning])
        }
        return process
    }

    /// Starts onboarding from identity; sends an OTP to a contact on file when the identity
    /// matches. Answers the same whether or not it does.
    /// - Throws: `notFound` (device, application), `onboardingCannotActivate`, `onboardingInProgress`.
    public func startOnboarding(deviceId: String, credentials: OnboardingCredentials, applicationId: String?,
                                canRestoreSession: Bool) throws {
        try transact { tx, effects in
            _ = try device(tx, deviceId)
            if try DeviceKeychain(tx: tx, deviceId: deviceId).get(.registrationId) != nil {
                throw DomainError(.onboardingCannotActivate, "This device is activated already", [Self.wdoCannotActivate])
            }
            let app = try application(tx, applicationId)
            if var existing = try currentOnboarding(tx, deviceId: deviceId) {
                if existing.onboardingStatus == .activationInProgress || existing.onboardingStatus == .verificationInProgress {
                    throw DomainError(.onboardingInProgress, "An onboarding process runs on this device already", [Self.wdoInProgress])
                }
                existing.closed = true
                try tx.save(existing)
            }
            let user = try matchCredentials(tx, credentials)
            var process = OnboardingProcessRecord(
                id: random.identifier("onb"), deviceId: deviceId, userId: user?.id, applicationId: app.applicationId,
                channel: nil, address: nil, otpHash: nil, otpExpiresAt: nil, lastSentAt: nil, wrongOtps: 0,
                status: OnboardingStatus.activationInProgress.rawValue, canRestoreSession: canRestoreSession,
                instance: instanceId, otpAccepted: false, registrationId: nil, closed: false, createdAt: now)
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
            try audit(tx, effects, .onboardingStarted, userId: user?.id, deviceId: deviceId)
        }
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

    /// Whether the device has an onboarding process it would resume.
    public func hasActiveOnboarding(deviceId: String) throws -> Bool {
        try transact { tx, _ in
            _ = try device(tx, deviceId)
            guard let process = try currentOnboarding(tx, deviceId: deviceId) else { return false }
            return process.onboardingStatus == .activationInProgress || process.onboardingStatus == .verificationInProgress
        }
    }

    /// The device's onboarding status.
    /// - Throws: `onboardingNotRunning`.
    public func onboardingStatus(deviceId: String) throws -> OnboardingStatus {
        try transact { tx, _ in try runningOnboarding(tx, deviceId: deviceId).onboardingStatus }
    }

    /// Checks the OTP; a right one opens the activation (finished by `activation/finish`).
    /// - Throws: `onboardingNotRunning`, `onboardingFailed`, `onboardingCannotActivate`,
    ///   `otpExpired` (not counted), `otpInvalid` (counted; the fifth fails the process).
    public func activateOnboarding(deviceId: String, otp: String, activationName: String?) throws -> ActivationOffer {
        try transact { tx, effects in
            let device = try device(tx, deviceId)
            var process = try runningOnboarding(tx, deviceId: deviceId)
            switch process.onboardingStatus {
            case .failed: throw DomainError(.onboardingFailed, "The onboarding process failed; start again")
            case .verificationInProgress, .finished:
                throw DomainError(.onboardingCannotActivate, "The onboarding activation is done already", [Self.wdoCannotActivate])
            case .activationInProgress: break
            }
            if try DeviceKeychain(tx: tx, deviceId: deviceId).get(.registrationId) != nil {
                throw DomainError(.onboardingCannotActivate, "This device is activated already", [Self.wdoCannotActivate])
            }
            guard now < (process.otpExpiresAt ?? 0) else {
                throw DomainError(.otpExpired, "The OTP has expired; ask for a new one")
            }
            let given = try codeHash(tx, otp, purpose: "onboarding:\(process.id)")
            guard let expected = process.otpHash, SecretHash.constantTimeEquals(given, expected) else {
                process.wrongOtps += 1
                let remaining = max(OnboardingProcessRecord.maxWrongOtps - process.wrongOtps, 0)
                try audit(tx, effects, .onboardingOtpRejected, userId: process.userId, deviceId: deviceId)
                if remaining == 0 {
                    process.status = OnboardingStatus.failed.rawValue
                    try audit(tx, effects, .onboardingFailed, userId: process.userId, deviceId: deviceId, detail: "otp")
                }
                try tx.save(process)
                throw DomainError(.otpInvalid, "The OTP is not valid",
                                  [("allowOtpRetry", .bool(remaining > 0)), ("remainingAttempts", .int(remaining))])
            }
            process.otpAccepted = true
            process.otpHash = nil
            try tx.save(process)
            try startSession(tx, deviceId: deviceId, kind: .activation, registration: nil, onboardingProcessId: process.id)
            try audit(tx, effects, .onboardingActivated, userId: process.userId, deviceId: deviceId, detail: activationName.map { _ in "named" })
            return offer(try application(tx, process.applicationId), device)
        }
    }

    /// Sends a new OTP (the previous one dies; wrong tries are not reset).
    /// - Throws: `onboardingNotRunning`, `onboardingFailed`, `resendLimited`.
    public func resendOnboardingOtp(deviceId: String) throws {
        try transact { tx, effects in
            var process = try runningOnboarding(tx, deviceId: deviceId)
            guard process.onboardingStatus == .activationInProgress else {
                throw DomainError(.onboardingFailed, "The onboarding process is not waiting for an OTP")
            }
            if let last = process.lastSentAt, now < last + OnboardingProcessRecord.resendInterval {
                throw DomainError(.resendLimited, "An OTP was sent less than 30 seconds ago",
                                  [("retryAfterSeconds", .int(Int(last + OnboardingProcessRecord.resendInterval - now)))])
            }
            try sendOnboardingOtp(tx, effects, &process)
        }
    }

    /// Cancels the device's onboarding process (and a registration still waiting for verification).
    /// - Throws: `onboardingNotRunning`.
    public func cancelOnboarding(deviceId: String, forceCancel: Bool) throws {
        try transact { tx, effects in
            var process = try runningOnboarding(tx, deviceId: deviceId)
            process.closed = true
            try tx.save(process)
            if let session = try tx.fetch(OperationSessionRecord.self, id: deviceId), session.onboardingProcessId == process.id {
                try tx.delete(OperationSessionRecord.self, id: deviceId)
            }
            if let registrationId = process.registrationId, var registration = try tx.fetch(RegistrationRecord.self, id: registrationId),
               registration.registrationState == .verificationPending {
                registration.state = RegistrationState.removed.rawValue
                try tx.save(registration)
                try revokeTokens(tx, registrationId: registrationId)
                try DeviceKeychain(tx: tx, deviceId: deviceId).wipeActivation()
            }
            try audit(tx, effects, .onboardingCancelled, userId: process.userId, deviceId: deviceId,
                      detail: forceCancel ? "forced" : nil)
        }
    }

    /// The process behind an onboarding activation session, if it may still activate.
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
