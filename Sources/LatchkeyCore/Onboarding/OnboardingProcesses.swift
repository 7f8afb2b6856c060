import LatchkeyContract

extension OnboardingProcessRecord {
    var onboardingStatus: OnboardingStatus { OnboardingStatus(rawValue: status) ?? .failed }

    static let lifetime: Int64 = 3 * 3600
    static let otpLifetime: Int64 = 300
    static let resendInterval: Int64 = 30
    static let maxWrongOtps = 5
    /// The processes that made a registration.
    static let ofRegistration = KeyedQuery<OnboardingProcessRecord>(Columns.registrationId)
    /// The open processes a caller started (by `Caller.key`).
    static let openOf = KeyedQuery<OnboardingProcessRecord>(Columns.deviceId, and: [.equals(Columns.closed, false)])
    /// The open processes still waiting for their OTP (those the clock fails at their end), optionally only those started by `startedBy`.
    static func waiting(startedBy: Int64? = nil) -> [StoreFilter] {
        [.equals(Columns.status, OnboardingStatus.activationInProgress.rawValue), .equals(Columns.closed, false)]
            + (startedBy.map { [StoreFilter(Columns.createdAt, .lessOrEqual, .int($0))] } ?? [])
    }
}

/// The server's side of onboarding: processes started from identity, each with its OTP, its
/// counters and its state. Who asks (a simulated device, an app installation) holds the process id.
extension Latchkey {

    static func notRunning(_ message: String = "No onboarding process is running") -> DomainError {
        DomainError(.onboardingNotRunning, message, [WDOReason.notRunning.detail])
    }

    /// A process by id, with time-driven failure applied (nil: unknown, closed, or failed and a day past its end: forgotten,
    /// whether or not `forgetExpiredRows` has deleted it yet).
    func onboardingProcess(_ tx: StoreTransaction, _ effects: Effects, _ processId: String) throws -> OnboardingProcessRecord? {
        guard var process = try tx.fetch(OnboardingProcessRecord.self, id: processId), !process.closed,
            process.onboardingStatus != .failed
                || !ExpiredRows.isForgotten(expiresAt: process.createdAt + OnboardingProcessRecord.lifetime, now: now)
        else { return nil }
        try settle(tx, effects, &process)
        return process
    }

    /// Fails an open process still waiting for its OTP once its 3 h are up, announced.
    private func settle(_ tx: StoreTransaction, _ effects: Effects, _ process: inout OnboardingProcessRecord) throws {
        guard process.onboardingStatus == .activationInProgress, now >= process.createdAt + OnboardingProcessRecord.lifetime else { return }
        process.status = OnboardingStatus.failed.rawValue
        try tx.save(process)
        onboardingStatusChanged(effects, process)
        // Audited as a failure by wrong OTPs is (with the device or installation that started it), at the 3 h end that failed it.
        let owner = Caller(key: process.deviceId)
        try audit(
            tx, effects, .onboardingFailed, userId: process.userId, deviceId: owner?.deviceId, detail: "expired",
            at: process.createdAt + OnboardingProcessRecord.lifetime, installationId: owner?.installationId)
    }

    /// When the next process waiting for its OTP reaches its end (nil: none).
    func onboardingNextDue() throws -> UnixTime? {
        try onboardingDueCache.get(nowMilliseconds: clock.nowMilliseconds) {
            try inspect { tx in try tx.first(OnboardingProcessRecord.self, where: OnboardingProcessRecord.waiting()) }
                .map { $0.createdAt + OnboardingProcessRecord.lifetime }
        }
    }

    /// Fails every process still waiting for its OTP whose 3 h are up, each announced once (as reading it would).
    func runDueOnboardingExpiries() throws {
        guard let due = try onboardingNextDue(), due <= now else { return }
        try transact { tx, effects in
            let ended = now - OnboardingProcessRecord.lifetime
            for var process in try tx.fetchAll(OnboardingProcessRecord.self, where: OnboardingProcessRecord.waiting(startedBy: ended)) {
                try settle(tx, effects, &process)
            }
        }
        onboardingDueCache.invalidate()
    }

    /// Records a change of what `onboarding/status` answers, for callbacks.
    func onboardingStatusChanged(_ effects: Effects, _ process: OnboardingProcessRecord) {
        effects.append(.onboardingStatusChanged(processId: process.id, applicationId: process.applicationId, status: process.onboardingStatus))
    }

    /// Starts a process for whoever the credentials name; sends an OTP to a contact on file when they name someone.
    ///
    /// The same answer (and the same random draws) either way.
    func startOnboardingProcess(
        _ tx: StoreTransaction, _ effects: Effects, owner: Caller, credentials: OnboardingCredentials,
        app: ApplicationConfig
    ) throws -> OnboardingProcessRecord {
        let user = try matchCredentials(tx, credentials)
        var process = OnboardingProcessRecord(
            id: random.uuid(), deviceId: owner.key, userId: user?.id, applicationId: app.applicationId,
            channel: nil, address: nil, otpHash: nil, otpExpiresAt: nil, lastSentAt: nil, wrongOtps: 0,
            status: OnboardingStatus.activationInProgress.rawValue, canRestoreSession: true,
            instance: "", otpAccepted: false, registrationId: nil, closed: false, createdAt: now)
        // The contact on file when the credentials name someone; else an empty address, which nothing is sent to (security property
        // 11: the row and the send's work cost the same either way).
        var channel = DeliveryChannel.email
        var address = ""
        if let user {
            if credentials.phoneNumber != nil || user.email == nil, let phone = user.phoneNumber {
                channel = .sms
                address = phone
            } else if let email = user.email {
                address = email
            }
        }
        process.channel = channel.rawValue
        process.address = address
        try sendOnboardingOtp(tx, effects, &process)
        onboardingStatusChanged(effects, process)
        onboardingDueCache.invalidate()
        try audit(
            tx, effects, .onboardingStarted, userId: user?.id ?? Self.nobody, deviceId: owner.deviceId,
            installationId: owner.installationId)
        return process
    }

    /// Makes a new OTP (the previous one dies) and sends it to the contact on file.
    ///
    /// A process that matched nobody draws the same random values and sends nothing.
    private func sendOnboardingOtp(_ tx: StoreTransaction, _ effects: Effects, _ process: inout OnboardingProcessRecord) throws {
        let otp = random.digits(8)
        let messageId = random.identifier("msg")
        process.otpExpiresAt = now + OnboardingProcessRecord.otpLifetime
        process.lastSentAt = now
        // The same hashing, message and writes whether or not the credentials matched anyone
        // (security property 11): only a match's message leaves, and only a match has an OTP. One
        // whose OTP is withheld keeps a hash of the same size under another purpose of the same length, which no OTP
        // given to activate can match: its row costs what a sent OTP's does.
        let channel = process.channel.flatMap(DeliveryChannel.init(rawValue:))
        let sent = channel != nil && process.address?.isEmpty == false
        process.otpHash = secretHash(otp, purpose: (sent ? "onboarding:" : "unsent-otp:") + process.id)
        let message = OutboundMessage(
            id: messageId, channel: channel ?? .email, to: process.address ?? "", purpose: .onboardingOtp, code: otp,
            text: "Your activation code is \(otp). It is valid for 5 minutes.", sentAt: now)
        let owner = Caller(key: process.deviceId)
        effects.append(sent ? .delivery(message) : .withheldDelivery(message))
        if sent, let channel {
            try audit(
                tx, effects, .onboardingOtpSent, userId: process.userId, deviceId: owner?.deviceId, detail: channel.rawValue,
                installationId: owner?.installationId)
        } else {
            try audit(
                tx, effects, .onboardingOtpWithheld, userId: process.userId == nil ? Self.nobody : nil, deviceId: owner?.deviceId,
                installationId: owner?.installationId)
        }
        try tx.save(process)
    }

    /// Checks the OTP of a process still waiting for one; a right one lets it activate.
    /// - Throws: `onboardingFailed`, `onboardingCannotActivate`, `otpExpired` (not counted),
    ///   `otpInvalid` (counted; the fifth fails the process).
    func acceptOnboardingOtp(
        _ tx: StoreTransaction, _ effects: Effects, _ process: inout OnboardingProcessRecord, otp: String,
        caller: Caller?
    ) throws {
        switch process.onboardingStatus {
        case .failed: throw DomainError(.onboardingFailed, "The onboarding process failed; start again")
        case .verificationInProgress, .finished:
            throw DomainError(.onboardingCannotActivate, "The onboarding activation is done already", [WDOReason.cannotActivate.detail])
        case .activationInProgress: break
        }
        guard now < (process.otpExpiresAt ?? 0) else {
            throw DomainError(.otpExpired, "The OTP has expired; ask for a new one")
        }
        let given = secretHash(otp, purpose: "onboarding:\(process.id)")
        guard let expected = process.otpHash, SecretHash.constantTimeEquals(given, expected) else {
            process.wrongOtps += 1
            let remaining = max(OnboardingProcessRecord.maxWrongOtps - process.wrongOtps, 0)
            try audit(
                tx, effects, .onboardingOtpRejected, userId: process.userId ?? Self.nobody, deviceId: caller?.deviceId,
                installationId: caller?.installationId)
            if remaining == 0 {
                process.status = OnboardingStatus.failed.rawValue
                onboardingStatusChanged(effects, process)
                try audit(
                    tx, effects, .onboardingFailed, userId: process.userId, deviceId: caller?.deviceId, detail: "otp",
                    installationId: caller?.installationId)
            }
            try tx.save(process)
            throw DomainError(
                .otpInvalid, "The OTP is not valid",
                [(.allowOtpRetry, .bool(remaining > 0)), (.remainingAttempts, .int(remaining))])
        }
        process.otpAccepted = true
        process.otpHash = nil
        try tx.save(process)
        try audit(
            tx, effects, .onboardingActivated, userId: process.userId, deviceId: caller?.deviceId,
            installationId: caller?.installationId)
    }

    /// Sends a new OTP (the previous one dies; wrong tries are not reset).
    /// - Throws: `onboardingNotRunning` (finished), `onboardingFailed` (failed, expired, or past its OTP), `resendLimited`.
    func resendOnboardingOtp(_ tx: StoreTransaction, _ effects: Effects, _ process: inout OnboardingProcessRecord) throws {
        // As `server/onboarding/cancel` says of a finished process: it is no longer running.
        if process.onboardingStatus == .finished { throw Self.notRunning("The onboarding process is finished") }
        guard process.onboardingStatus == .activationInProgress else {
            throw DomainError(.onboardingFailed, "The onboarding process is not waiting for an OTP")
        }
        if let last = process.lastSentAt, now < last + OnboardingProcessRecord.resendInterval {
            throw DomainError(
                .resendLimited, "An OTP was sent less than 30 seconds ago",
                [(.retryAfterSeconds, .int(Int(last + OnboardingProcessRecord.resendInterval - now)))])
        }
        try sendOnboardingOtp(tx, effects, &process)
    }

    /// Ends a process that is still running (removing the registration waiting for verification).
    /// - Throws: `onboardingFailed` (failed or expired), `onboardingNotRunning` (finished).
    func cancelOnboardingProcess(_ tx: StoreTransaction, _ effects: Effects, _ process: OnboardingProcessRecord, caller: Caller?) throws {
        switch process.onboardingStatus {
        case .failed: throw DomainError(.onboardingFailed, "The onboarding process failed already")
        case .finished: throw Self.notRunning("The onboarding process is finished")
        case .activationInProgress, .verificationInProgress: break
        }
        var process = process
        process.closed = true
        try tx.save(process)
        if let registrationId = process.registrationId, var registration = try tx.fetch(RegistrationRecord.self, id: registrationId),
            registration.registrationState == .verificationPending
        {
            registration.state = RegistrationState.removed.rawValue
            try tx.save(registration)
            registrationStateChanged(effects, registration, from: .verificationPending)
            try revokeTokens(tx, registrationId: registrationId)
        }
        // The process's own device or installation when the caller names none (`server/onboarding/cancel` by processId).
        let who = caller ?? Caller(key: process.deviceId)
        try audit(
            tx, effects, .onboardingCancelled, userId: process.userId, deviceId: who?.deviceId, installationId: who?.installationId)
    }

    /// The process behind an onboarding activation, if it may still activate.
    func activatableOnboardingProcess(
        _ tx: StoreTransaction, _ processId: String?
    ) throws
        -> (process: OnboardingProcessRecord, userId: String)
    {
        guard let processId, let process = try tx.fetch(OnboardingProcessRecord.self, id: processId), !process.closed,
            process.otpAccepted, process.onboardingStatus == .activationInProgress,
            now < process.createdAt + OnboardingProcessRecord.lifetime, let userId = process.userId
        else {
            throw DomainError(.onboardingFailed, "The onboarding process can no longer activate")
        }
        return (process, userId)
    }

    /// Records that onboarding made its registration (now waiting for verification).
    func onboardingActivated(
        _ tx: StoreTransaction, _ effects: Effects, _ process: OnboardingProcessRecord,
        registrationId: String
    ) throws {
        var process = process
        process.status = OnboardingStatus.verificationInProgress.rawValue
        process.registrationId = registrationId
        try tx.save(process)
        onboardingStatusChanged(effects, process)
    }

    /// Ends identity verification: approved → usable; rejected → the registration is removed.
    /// - Throws: `notFound` (registration, user).
    public func completeVerification(_ target: VerificationTarget, approved: Bool) throws -> OnboardingStatus {
        try transact { tx, effects in
            tx.willRead(Self.verificationTargetReads(target))
            var registration: RegistrationRecord
            switch target {
            case .registration(let registrationId):
                registration = try self.registration(tx, registrationId)
            case .user(let userId):
                _ = try user(tx, userId)
                guard let pending = try tx.fetchAll(Self.newestPending.query(userId)).first else {
                    throw DomainError.notFound("registration")
                }
                registration = pending
            }
            guard registration.registrationState == .verificationPending else {
                throw DomainError(.notFound, "The registration is not waiting for verification", [(.kind, .string("registration"))])
            }
            registration.state = (approved ? RegistrationState.active : .removed).rawValue
            try tx.save(registration)
            registrationStateChanged(effects, registration, from: .verificationPending)
            if !approved { try revokeTokens(tx, registrationId: registration.id) }
            let status: OnboardingStatus = approved ? .finished : .failed
            for var process in try tx.fetchAll(OnboardingProcessRecord.ofRegistration, registration.id) {
                process.status = status.rawValue
                try tx.save(process)
                onboardingStatusChanged(effects, process)
            }
            try audit(
                tx, effects, .verificationCompleted, userId: registration.userId, registrationId: registration.id,
                detail: approved ? "approved" : "rejected")
            return status
        }
    }
}

extension Latchkey {
    /// A user's newest registration waiting for verification.
    static let newestPending = KeyedQuery<RegistrationRecord>(
        RegistrationRecord.Columns.userId, and: [.equals(RegistrationRecord.Columns.state, RegistrationState.verificationPending.rawValue)],
        newestFirst: true, limit: 1)

    /// What `completeVerification` reads: the registration (or the user and their newest pending
    /// one) and the onboarding processes that made it.
    static func verificationTargetReads(_ target: VerificationTarget) -> [StoreRead] {
        switch target {
        case .registration(let registrationId):
            return [.row(RegistrationRecord.self, id: registrationId), .rows(OnboardingProcessRecord.ofRegistration, .value(registrationId))]
        case .user(let userId):
            return [
                .row(UserRecord.self, id: userId), .rows(newestPending.query(userId)),
                .rows(OnboardingProcessRecord.ofRegistration, .ids(of: newestPending, .value(userId))),
            ]
        }
    }
}

/// Whose identity verification ends: a user's newest pending registration, or one registration.
public enum VerificationTarget: Sendable {
    case user(String)
    case registration(String)
}

extension ServerSession {
    /// The process by id.
    /// - Throws: `onboardingNotRunning` (unknown, or cancelled).
    private func process(_ processId: String) throws -> OnboardingProcessRecord {
        let process = StoreKey.value(processId)
        tx.willRead([
            .row(OnboardingProcessRecord.self, id: processId),
            .row(ApplicationRecord.self, id: .column(OnboardingProcessRecord.Columns.applicationId, of: OnboardingProcessRecord.self, process)),
            .row(RegistrationRecord.self, id: .column(OnboardingProcessRecord.Columns.registrationId, of: OnboardingProcessRecord.self, process)),
            .row(ApplicationKeyRecord.self, id: .column(OnboardingProcessRecord.Columns.applicationId, of: OnboardingProcessRecord.self, process)),
        ])
        guard let process = try core.onboardingProcess(tx, effects, processId) else { throw Latchkey.notRunning() }
        return process
    }

    /// Starts a process; the same answer whether or not the credentials name a user.
    ///
    /// One running process per caller.
    /// - Throws: `notFound` (application), `onboardingInProgress`.
    public func startOnboarding(credentials: OnboardingCredentials, applicationId: String?, caller: Caller) throws -> String {
        tx.willRead(core.onboardingStartReads(credentials: credentials, applicationId: applicationId, caller: caller))
        let app = try core.application(tx, applicationId)
        let open = try tx.fetchAll(OnboardingProcessRecord.openOf, caller.key)
        for running in open {
            guard let current = try core.onboardingProcess(tx, effects, running.id) else { continue }
            if current.onboardingStatus == .activationInProgress || current.onboardingStatus == .verificationInProgress {
                throw DomainError(.onboardingInProgress, "An onboarding process runs for this caller already", [WDOReason.inProgress.detail])
            }
        }
        return try core.startOnboardingProcess(tx, effects, owner: caller, credentials: credentials, app: app).id
    }

    public func onboardingStatus(processId: String) throws -> OnboardingStatus {
        try process(processId).onboardingStatus
    }

    public func resendOnboardingOtp(processId: String) throws {
        var process = try process(processId)
        try core.resendOnboardingOtp(tx, effects, &process)
    }

    public func cancelOnboarding(processId: String, caller: Caller?) throws {
        try core.cancelOnboardingProcess(tx, effects, try process(processId), caller: caller)
    }

    /// Checks the OTP; a right one opens an activation that `commitActivation` completes (the
    /// registration then waits for verification).
    /// - Throws: `onboardingNotRunning`, `onboardingFailed`, `onboardingCannotActivate`, `otpExpired`, `otpInvalid`.
    public func activateOnboarding(processId: String, otp: String, caller asker: Caller?) throws -> KeyRequest {
        var process = try process(processId)
        // The installation that started the process asks (an activate names none of its own).
        let caller = asker ?? Caller(key: process.deviceId)
        try core.acceptOnboardingOtp(tx, effects, &process, otp: otp, caller: caller)
        let app = try core.application(tx, process.applicationId)
        return try openActivation(codeId: nil, processId: process.id, caller: caller, app)
    }
}
