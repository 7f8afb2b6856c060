import LatchkeyContract
import LatchkeyDevice
import LatchkeyTestSupport
import Testing

@testable import LatchkeyCore

@Suite struct AttemptCountingTests {
    func failPin(_ system: TestSystem) -> DomainError? {
        domainError {
            _ = try system.on { try $0.startAuthentication() }
            _ = try system.on { try $0.finishAuthentication(AuthParameter(method: .pin, pin: "0000"), tokenPurpose: .none) }
        }
    }

    @Test func fifthFailureLocksAndLaterTriesStayLocked() throws {
        let system = try makeSystem()
        let registrationId = try activatedWithPin(system)
        for remaining in [4, 3, 2, 1] {
            let error = failPin(system)
            #expect(error?.reason == .authenticationFailed)
            #expect(error?.detail(.remainingAttempts) == .int(remaining))
        }
        let locking = failPin(system)
        #expect(locking?.reason == .registrationLocked)
        #expect(locking?.detail(.remainingAttempts) == .int(0))
        #expect(failPin(system)?.reason == .registrationLocked)
        let info = try system.core.registrationInfo(registrationId)
        #expect(info.state == .locked)
        #expect(info.failedAttempts == 5)
    }

    @Test func twoFactorSuccessResetsTheCounterButPossessionDoesNot() throws {
        let system = try makeSystem()
        let registrationId = try activatedWithPin(system)
        _ = failPin(system)
        _ = try system.on { try $0.startAuthentication() }
        _ = try system.on { try $0.finishAuthentication(AuthParameter(method: .device), tokenPurpose: .none) }
        #expect(try system.failedAttempts(registrationId) == 1)
        _ = try system.on { try $0.startAuthentication() }
        _ = try system.on { try $0.finishAuthentication(AuthParameter(method: .pin, pin: "1234"), tokenPurpose: .none) }
        #expect(try system.failedAttempts(registrationId) == 0)
    }

    @Test func biometricRefusalsNeverReachTheServer() throws {
        let system = try makeSystem()
        let registrationId = try activatedWithPin(system)
        _ = try system.on { try $0.startAddOrUpdate() }
        _ = try system.on { try $0.finishAddOrUpdate(activation: AuthParameter(method: .faceId), proof: AuthParameter(method: .pin, pin: "1234")) }
        for (outcome, reason) in [(BiometricOutcome.noMatch, ErrorReason.biometryFailed), (.cancel, .biometryCancelled)] {
            try system.devices.setBiometricOutcome(deviceId: "d1", outcome)
            _ = try system.on { try $0.startAuthentication() }
            let error = domainError { _ = try system.on { try $0.finishAuthentication(AuthParameter(method: .faceId), tokenPurpose: .none) } }
            #expect(error?.reason == reason)
        }
        #expect(try system.failedAttempts(registrationId) == 0)
    }

    @Test func expiredSessionIsRefusedBeforeTheFactor() throws {
        let system = try makeSystem()
        let registrationId = try activatedWithPin(system)
        _ = try system.on { try $0.startAuthentication() }
        try system.core.clock.advance(by: 300)
        let error = domainError { _ = try system.on { try $0.finishAuthentication(AuthParameter(method: .pin, pin: "0000"), tokenPurpose: .none) } }
        #expect(error?.reason == .sessionExpired)
        #expect(try system.failedAttempts(registrationId) == 0)
    }
}

@Suite struct TokenTests {
    @Test func tokenIsSingleUsePurposeBoundAndExpires() throws {
        let system = try makeSystem()
        _ = try activatedWithPin(system)
        func token(_ purpose: TokenPurpose) throws -> String {
            _ = try system.on { try $0.startAuthentication() }
            return try #require(try system.on { try $0.finishAuthentication(AuthParameter(method: .pin, pin: "1234"), tokenPurpose: purpose) }.token)
        }
        let deletion = try token(.deleteRecovery)
        #expect(
            domainError { try system.on { try $0.startRecoveryChange(token: deletion, purpose: .addOrUpdateRecovery) } }?.reason
                == .tokenPurposeMismatch)
        let first = try token(.addOrUpdateRecovery)
        try system.on { try $0.startRecoveryChange(token: first, purpose: .addOrUpdateRecovery) }
        #expect(domainError { try system.on { try $0.startRecoveryChange(token: first, purpose: .addOrUpdateRecovery) } }?.reason == .tokenInvalid)
        let second = try token(.addOrUpdateRecovery)
        try system.core.clock.advance(by: 300)
        #expect(domainError { try system.on { try $0.startRecoveryChange(token: second, purpose: .addOrUpdateRecovery) } }?.reason == .tokenExpired)
        #expect(
            domainError { try system.on { try $0.startRecoveryChange(token: "not-a-token", purpose: .addOrUpdateRecovery) } }?.reason == .tokenInvalid
        )
    }

    @Test func deviceAloneCannotYieldAToken() throws {
        let system = try makeSystem()
        _ = try activatedWithPin(system)
        _ = try system.on { try $0.startAuthentication() }
        let error = domainError { _ = try system.on { try $0.finishAuthentication(AuthParameter(method: .device), tokenPurpose: .deleteRecovery) } }
        #expect(error?.reason == .authMethodNotAllowed)
    }
}

@Suite struct GracePeriodTests {
    @Test func oneLongAdvanceWalksThroughBothTransitionsWithExactTimes() throws {
        let system = try makeSystem()
        _ = try system.core.createUser(NewUser(userId: "bob", email: "bob@example.com", password: "password1"))
        let session = try system.core.login(.userId("bob"), password: "password1").sessionId
        let started = try system.core.startAccountRecovery(sessionId: session)
        #expect(started.endTime == started.startTime + 72 * 3600)
        try system.core.advanceClock(by: 11 * 86_400)
        let (status, item) = try system.core.accountRecoveryStatus(sessionId: session)
        #expect(status?.state == .expired)
        #expect(status?.startTime == started.startTime + 72 * 3600 + 7 * 86_400)
        #expect(status?.endTime == nil)
        #expect(item.canCancel == false)
    }

    @Test func aNewLoginCancelsTheGracePeriod() throws {
        let system = try makeSystem()
        _ = try system.core.createUser(NewUser(userId: "bob", password: "password1"))
        let session = try system.core.login(.userId("bob"), password: "password1").sessionId
        _ = try system.core.startAccountRecovery(sessionId: session)
        _ = try system.core.login(.userId("bob"), password: "password1")
        let status = try system.core.profile(sessionId: session).accountRecovery
        #expect(status?.state == .cancelled)
        #expect(status?.reason == .newSession)
        let refused = domainError { _ = try system.core.cancelAccountRecovery(sessionId: session) }
        #expect(refused?.reason == .accountRecoveryNotAllowed)
        #expect(refused?.detail(.state) == .int(2))
    }
}
