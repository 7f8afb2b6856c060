import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeySimulator
import LatchkeyTestSupport
import Testing

/// The device half of "Biometric keys are bound to the enrolled biometrics" (StrongTouchID):
/// `changeBiometricEnrolment` destroys the biometric keys; the next use of such a method answers
/// `biometryKeyInvalidated`, counts nothing and deactivates it on the server.
@Suite struct BiometricEnrolmentTests {
    let face = AuthParameter(method: .faceId)
    let pin = AuthParameter(method: .pin, pin: "1234")

    /// A PIN registration on `d1` with Face ID added.
    func withPinAndFaceId() throws -> (TestSystem, String) {
        let system = try makeSystem()
        let registrationId = try activatedWithPin(system)
        _ = try system.on { try $0.startAddOrUpdate() }
        _ = try system.on { try $0.finishAddOrUpdate(activation: face, proof: pin) }
        return (system, registrationId)
    }

    func authenticate(_ system: TestSystem, _ parameter: AuthParameter) throws {
        _ = try system.on { try $0.startAuthentication() }
        _ = try system.on { try $0.finishAuthentication(parameter, tokenPurpose: .none) }
    }

    @Test func aDeviceWithoutBiometryHasNoEnrolmentToChange() throws {
        let system = try makeSystem()
        _ = try system.devices.create(NewDevice(deviceId: "bare", biometry: .none))
        let error = domainError { _ = try system.on("bare") { try $0.changeBiometricEnrolment() } }
        #expect(error?.reason == .biometryUnavailable)
    }

    @Test func aDeviceWithoutKeysDestroysNothing() throws {
        let system = try makeSystem()
        _ = try system.devices.create(NewDevice(deviceId: "d1"))
        #expect(try system.on { try $0.changeBiometricEnrolment() } == [])
    }

    @Test func theChangeDestroysTheBiometricKeysOnce() throws {
        let (system, registrationId) = try withPinAndFaceId()
        #expect(try system.on { try $0.changeBiometricEnrolment() } == [.faceId])
        #expect(try system.on { try $0.changeBiometricEnrolment() } == [])
        // The server does not know yet: it still lists faceId until the device uses it.
        #expect(try system.core.registrationInfo(registrationId).authMethods == [.device, .pin, .faceId])
    }

    @Test func theRefusedFinishCountsNothingAndDeactivatesTheMethod() throws {
        let (system, registrationId) = try withPinAndFaceId()
        try authenticate(system, face)
        _ = try system.on { try $0.changeBiometricEnrolment() }
        let offer = try system.on { try $0.startAuthentication() }
        #expect(offer.authenticationMethod == .pin)  // faceId was the last method, and is never proposed now
        let error = domainError { _ = try system.on { try $0.finishAuthentication(face, tokenPurpose: .none) } }
        #expect(error?.reason == .biometryKeyInvalidated)
        #expect(error?.detail(.authMethod) == .string("faceId"))
        #expect(error?.detail(.activatedAuthMethods) == .strings(["device", "pin"]))
        let info = try system.core.registrationInfo(registrationId)
        #expect(info.authMethods == [.device, .pin])
        #expect(info.failedAttempts == 0)
        // The session in hand stays: the PIN finishes it.
        _ = try system.on { try $0.finishAuthentication(pin, tokenPurpose: .none) }
        #expect(try system.core.registrationInfo(registrationId).authMethods == [.device, .pin])
    }

    @Test func aPinAddsTheMethodAgainWithANewKey() throws {
        let (system, registrationId) = try withPinAndFaceId()
        _ = try system.on { try $0.changeBiometricEnrolment() }
        _ = try system.on { try $0.startAuthentication() }
        _ = domainError { _ = try system.on { try $0.finishAuthentication(face, tokenPurpose: .none) } }
        _ = try system.on { try $0.startAddOrUpdate() }
        #expect(try system.on { try $0.finishAddOrUpdate(activation: face, proof: pin) } == [.device, .pin, .faceId])
        try authenticate(system, face)
        #expect(try system.core.registrationInfo(registrationId).authMethods == [.device, .pin, .faceId])
    }

    @Test func anInvalidatedProofOfAnAddOrUpdateIsRefusedToo() throws {
        let (system, registrationId) = try withPinAndFaceId()
        _ = try system.on { try $0.changeBiometricEnrolment() }
        _ = try system.on { try $0.startAddOrUpdate() }
        let error = domainError {
            _ = try system.on { try $0.finishAddOrUpdate(activation: AuthParameter(method: .pin, pin: "5678"), proof: face) }
        }
        #expect(error?.reason == .biometryKeyInvalidated)
        #expect(try system.core.registrationInfo(registrationId).authMethods == [.device, .pin])
        // The add-or-update in hand stays: the PIN proves the user.
        #expect(try system.on { try $0.finishAddOrUpdate(activation: face, proof: pin) } == [.device, .pin, .faceId])
    }

    @Test func aFaceIdOnlyRegistrationIsLeftWithDeviceAlone() throws {
        let system = try makeSystem()
        _ = try system.core.createUser(NewUser(userId: "bob", email: "bob@example.com"))
        let code = try system.core.createActivationCode(userId: "bob", applicationId: nil).code
        _ = try system.devices.create(NewDevice(deviceId: "d1"))
        _ = try system.on { try $0.startActivation(code: code, applicationId: nil) }
        let registrationId = try system.on { try $0.finishActivation(face, tokenPurpose: .none, activationName: nil).registrationId }
        #expect(try system.on { try $0.changeBiometricEnrolment() } == [.faceId])
        _ = try system.on { try $0.startAuthentication() }
        let error = domainError { _ = try system.on { try $0.finishAuthentication(face, tokenPurpose: .none) } }
        #expect(error?.reason == .biometryKeyInvalidated)
        #expect(error?.detail(.activatedAuthMethods) == .strings(["device"]))
        #expect(error?.message.contains("needs a recovery or a new activation") == true)
        #expect(try system.core.registrationInfo(registrationId).authMethods == [.device])
        let offer = try system.on { try $0.startAuthentication() }
        #expect(offer.authenticationMethods == [.device])
        #expect(offer.authenticationMethod == .device)
    }

    @Test func aTouchIdDeviceLosesItsTouchIdKey() throws {
        let system = try makeSystem()
        _ = try system.core.createUser(NewUser(userId: "carol", email: "carol@example.com"))
        let code = try system.core.createActivationCode(userId: "carol", applicationId: nil).code
        _ = try system.devices.create(NewDevice(deviceId: "d1", biometry: .touchId))
        _ = try system.on { try $0.startActivation(code: code, applicationId: nil) }
        _ = try system.on { try $0.finishActivation(AuthParameter(method: .touchId), tokenPurpose: .none, activationName: nil) }
        #expect(try system.on { try $0.changeBiometricEnrolment() } == [.touchId])
    }
}
