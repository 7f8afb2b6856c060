import LatchkeyContract

/// Biometric keys bound to the enrolled biometrics (Encap's StrongTouchID, iOS
/// `.biometryCurrentSet`, Android `setInvalidatedByBiometricEnrollment`): a finger or a face
/// added or enrolled again destroys every `touchId` and `faceId` key the device holds. A method
/// still activated whose key is gone is *invalidated*: using it deactivates it on the server (a
/// device authentication) and answers `biometryKeyInvalidated`; nothing counts.
extension Device {
    /// The keychain item of a biometric method's key.
    static func biometricKeyItem(_ method: AuthMethod) -> DeviceItem? {
        switch method {
        case .touchId: return .touchIdKey
        case .faceId: return .faceIdKey
        case .device, .pin: return nil
        }
    }

    /// A finger or a face added or enrolled again: the device destroys every biometric key it holds.
    /// - Returns: the methods whose keys were destroyed, in the contract's order.
    /// - Throws: `biometryUnavailable` (a device without biometry).
    public func changeBiometricEnrolment() throws -> [AuthMethod] {
        guard profile.biometry != .none else {
            throw DomainError(.biometryUnavailable, "This device has no biometry to enrol")
        }
        var destroyed: [AuthMethod] = []
        for method in AuthMethod.allCases {
            guard let item = Self.biometricKeyItem(method), try storage.item(item) != nil else { continue }
            try storage.setItem(item, nil)
            destroyed.append(method)
        }
        return destroyed
    }

    /// Whether `method` is biometric and its key is gone (destroyed by a change of enrolment).
    func isInvalidated(_ method: AuthMethod) throws -> Bool {
        guard let item = Self.biometricKeyItem(method) else { return false }
        return try storage.item(item) == nil
    }

    /// Refuses an activated method whose key was destroyed: deactivates it on the server with a
    /// device authentication (as `deactivateAuthMethod` does, on a challenge of its own), forgets
    /// it, and keeps `operation` in hand (nothing counted, nothing used up: another method may
    /// finish it; nil: none was).
    /// - Throws: `biometryKeyInvalidated` (with `data.authMethod` and the methods left,
    ///   `data.activatedAuthMethods`), or what the deactivation answers (the state answers,
    ///   `registrationRemoved`).
    func refuseInvalidated(_ method: AuthMethod, keeping operation: PendingOperation?) throws -> Never {
        let left: [AuthMethod]
        do {
            left = try deactivateAuthMethod(method)
        } catch {
            try storage.setPendingOperation(operation)
            throw error
        }
        try storage.setPendingOperation(operation)
        let next =
            left.contains(where: \.isTwoFactor)
            ? "add it again, proven with another two-factor method"
            : "the registration is left with device alone and needs a recovery or a new activation"
        throw DomainError(
            .biometryKeyInvalidated,
            "The \(method.rawValue) key was destroyed by a change of biometric enrolment: nothing was counted and \(method.rawValue) "
                + "is deactivated; \(next)",
            [(.authMethod, .string(method.rawValue)), (.activatedAuthMethods, .strings(left.map(\.rawValue)))])
    }
}
