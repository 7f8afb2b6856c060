import Crypto
import LatchkeyContract

/// What the phone shows after an offline approval: the code the user types back, and what it approved.
public struct OfflineApproval: Sendable, Equatable {
    /// `part(device)-part(second factor)`, 17 characters.
    public var code: String
    public var operationId: String
    public var title: String
    public var message: String
    public var data: String
}

/// Offline approval on the phone: it scans a QR payload, checks it against the operation-signing key
/// it kept from its activation, shows the operation and, after the second factor, the code — with no
/// server call. A wrong PIN unmasks a wrong key, so its part is wrong and only the server can tell.
extension Device {
    /// Scans `qrPayload` and answers the code for `parameter`'s method.
    /// - Throws: `notActivatedLocally`, `qrInvalid` (not a payload, or not signed by the key the phone keeps: nothing shown or counted),
    ///   `offlineUnavailable` (no server key or operation-signing key yet: a phone restored from a backup, until it is online
    ///   once), `authMethodNotAllowed` (`device`, a method not activated, touchId or faceId without
    ///   `B`), `biometryKeyInvalidated`, the biometric errors.
    public func approveOffline(qrPayload: String, _ parameter: AuthParameter) throws -> OfflineApproval {
        let registrationId = try heldRegistration()
        let payload: QRPayload
        do {
            guard let keyBytes = try storage.item(.operationSigningKey), let signingKey = PublicKey(sec1: keyBytes) else {
                // A phone restored from a backup learns the key at its first online authentication or operation list: a payload
                // of the right form is one it cannot check yet.
                _ = try QRPayload.parse(qrPayload)
                throw DomainError(
                    .offlineUnavailable,
                    "The phone does not know its application's operation-signing key yet: authenticate or list operations once online")
            }
            payload = try QRPayload.parse(qrPayload, verifyingWith: signingKey)
        } catch let error as QRPayloadError {
            throw DomainError(.qrInvalid, "The QR code was refused, \(error.reason); nothing was shown")
        }
        guard let serverBytes = try storage.item(.serverPublicKey), let serverKey = PublicKey(sec1: serverBytes) else {
            throw DomainError(.offlineUnavailable, "The phone does not know its registration's server key yet: authenticate once online")
        }
        let method = parameter.method
        guard method.isTwoFactor, try activatedMethods().contains(method), method == .pin || payload.biometric else {
            throw DomainError(.authMethodNotAllowed, "\(method.rawValue) may not make this code")
        }
        if try isInvalidated(method) {
            throw DomainError(
                .biometryKeyInvalidated,
                "The \(method.rawValue) key was destroyed by a change of biometric enrolment: nothing was counted; approve with another method",
                [(.authMethod, .string(method.rawValue))])
        }
        try profile.checkBiometry(method)
        let devicePart = try Self.offlinePart(
            try storage.item(.possessionKey) ?? [], role: .device, serverKey: serverKey, registrationId: registrationId, payload)
        let factorPart = try Self.offlinePart(
            try privateKey(parameter), role: KeyRole(method), serverKey: serverKey, registrationId: registrationId, payload)
        return OfflineApproval(
            code: devicePart + "-" + factorPart, operationId: payload.operationId, title: payload.title, message: payload.message,
            data: payload.data)
    }

    /// One part of the code.
    ///
    /// Bytes that are no key at all (a wrong PIN's, once in 2^32) give a part no one can predict, as a wrong key's.
    static func offlinePart(
        _ privateKey: [UInt8], role: KeyRole, serverKey: PublicKey, registrationId: String, _ payload: QRPayload
    ) throws
        -> String
    {
        let secret: [UInt8]
        if (try? P256.KeyAgreement.PrivateKey(rawRepresentation: privateKey)) == nil {
            secret = SHA256.hash(data: privateKey).byteArray
        } else {
            secret = try OfflineCode.sharedSecret(privateKey: privateKey, publicKey: serverKey)
        }
        return OfflineCode.part(
            sharedSecret: secret, role: role, registrationId: registrationId, operationId: payload.operationId,
            operationHash: payload.operationHash, nonce: payload.nonce)
    }
}
