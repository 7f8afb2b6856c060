import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

/// The contract's error table: every domain reason with its numeric code and meaning.
///
/// The transport's own codes are `TransportError`'s; these are the one place for the rest.
enum ErrorCodes {
    /// The reason's code, with its name.
    static func code(_ reason: ErrorReason) -> ErrorCode { ErrorCode(number(reason), reason: reason.rawValue) }

    private static func number(_ reason: ErrorReason) -> Int {
        switch reason {
        case .invalidParams: return TransportError.invalidParams.rawValue
        case .notFound: return 1000
        case .alreadyExists: return 1001
        case .forbidden: return 1002
        case .policyViolation: return 1003
        case .rateLimited: return 1004
        case .storeUnavailable: return 1005
        case .notActivatedLocally: return 1100
        case .alreadyActivated: return 1101
        case .biometryUnavailable: return 1102
        case .biometryFailed: return 1103
        case .biometryCancelled: return 1104
        case .iCloudKeychainDisabled: return 1105
        case .biometryKeyInvalidated: return 1106
        case .noSessionInProgress: return 1200
        case .sessionExpired: return 1201
        case .activationCodeInvalid: return 1300
        case .activationCodeExpired: return 1301
        case .authMethodNotAllowed: return 1302
        case .proofInvalid: return 1303
        case .authenticationFailed: return 1400
        case .registrationLocked: return 1401
        case .lockedByAdmin: return 1402
        case .registrationRemoved: return 1403
        case .verificationPending: return 1404
        case .cannotDeactivateDevice: return 1405
        case .tokenInvalid: return 1500
        case .tokenExpired: return 1501
        case .tokenPurposeMismatch: return 1502
        case .recoveryNotActivated: return 1600
        case .recoveryCodeInvalid: return 1601
        case .recoveryLocked: return 1602
        case .accountRecoveryNotAllowed: return 1700
        case .userSessionInvalid: return 1701
        case .invalidCredentials: return 1702
        case .onboardingInProgress: return 1800
        case .onboardingNotRunning: return 1801
        case .onboardingCannotActivate: return 1802
        case .otpInvalid: return 1803
        case .otpExpired: return 1804
        case .resendLimited: return 1805
        case .onboardingFailed: return 1806
        case .verificationCodeInvalid: return 1900
        case .verificationCodeExpired: return 1901
        case .passkeyInvalid: return 1950
        case .operationNotPending: return 2000
        case .operationDataMismatch: return 2001
        case .operationFailed: return 2002
        case .qrInvalid: return 2003
        case .offlineUnavailable: return 2004
        }
    }

    static func summary(_ reason: ErrorReason) -> String {
        switch reason {
        case .invalidParams: return TransportError.invalidParams.summary
        case .notFound:
            return "No such thing; data.kind: device, user, registration, application, backup, session, message, authentication, passkey, "
                + "operation, operationTemplate, callback, callbackDelivery."
        case .alreadyExists: return "It exists already."
        case .forbidden: return "Closed by --no-admin, or clock/advance on a system clock."
        case .policyViolation:
            return "A PIN or password breaks the policy, or a user holds the most passkeys allowed; data.violations (tooManyPasskeys)."
        case .rateLimited: return "Too many attempts; data.retryAfterSeconds."
        case .storeUnavailable: return "The store could not be reached or could not commit; nothing was written; data.retryAfterSeconds."
        case .notActivatedLocally: return "The device holds no activation."
        case .alreadyActivated: return "The device is activated already."
        case .biometryUnavailable: return "The device has no such biometry."
        case .biometryFailed: return "The device refused the face or finger; nothing counts."
        case .biometryCancelled: return "The user cancelled the biometric prompt; nothing counts."
        case .iCloudKeychainDisabled: return "An iCloud backup needs iCloud Keychain."
        case .biometryKeyInvalidated:
            return "The biometric key was destroyed by a change of enrolment; nothing counts; the method is deactivated (data.authMethod, "
                + "data.activatedAuthMethods: device alone needs a recovery or a new activation). Offline (operation/offlineApprove) "
                + "nothing is deactivated and data holds authMethod alone: the phone's next online use deactivates it."
        case .noSessionInProgress: return "No started operation to finish."
        case .sessionExpired: return "The started operation is older than 300 s."
        case .activationCodeInvalid: return "Unknown, used or foreign activation code."
        case .activationCodeExpired: return "The activation code's lifetime is over."
        case .authMethodNotAllowed: return "The method may not be used for this."
        case .proofInvalid: return "A key's proof of possession failed (data.keyRole); nothing registered, nothing counted."
        case .authenticationFailed: return "Wrong PIN or bad signature; data.remainingAttempts."
        case .registrationLocked: return "Too many failed attempts; data.remainingAttempts is 0."
        case .lockedByAdmin: return "An operator locked the registration."
        case .registrationRemoved: return "The registration was removed or moved to another device."
        case .verificationPending: return "Identity verification is not complete."
        case .cannotDeactivateDevice: return "The device method cannot be deactivated."
        case .tokenInvalid: return "Unknown, used, or another registration's token."
        case .tokenExpired: return "The token's lifetime is over."
        case .tokenPurposeMismatch: return "The token was issued for another purpose."
        case .recoveryNotActivated: return "No recovery code is set."
        case .recoveryCodeInvalid: return "Wrong recovery code; data.remainingAttempts."
        case .recoveryLocked: return "Too many wrong recovery codes."
        case .accountRecoveryNotAllowed: return "Not allowed in the current state; data.state."
        case .userSessionInvalid: return "Unknown, ended or expired user session."
        case .invalidCredentials: return "Wrong identifier or password."
        case .onboardingInProgress: return "An onboarding process is running; data.wdoReason."
        case .onboardingNotRunning: return "No onboarding process on this device; data.wdoReason."
        case .onboardingCannotActivate: return "The device cannot be onboarded; data.wdoReason."
        case .otpInvalid: return "Wrong OTP; data.allowOtpRetry, data.remainingAttempts."
        case .otpExpired: return "The OTP's lifetime is over; does not count."
        case .resendLimited: return "A resend too soon; data.retryAfterSeconds."
        case .onboardingFailed: return "The onboarding process failed."
        case .verificationCodeInvalid: return "Wrong verification code; data.remainingAttempts."
        case .verificationCodeExpired: return "The verification code's lifetime is over."
        case .passkeyInvalid: return "A passkey credential failed a Relying Party check (data.check); nothing registered, nobody signed in."
        case .operationNotPending: return "The operation is approved, rejected, failed, expired or canceled (data.status)."
        case .operationDataMismatch:
            return "The phone signed other data than the operation's; counts one on the operation (data.remainingAttempts)."
        case .operationFailed: return "This failure used up the operation's maxFailureCount: the operation is failed (data.status)."
        case .qrInvalid: return "The phone refused a QR payload (its form or its signature); nothing counts."
        case .offlineUnavailable:
            return "The phone does not yet know its registration's server key (or, restored from a backup, its application's "
                + "operation-signing key): it must be online once."
        }
    }

    /// The `reason` name on the wire.
    static func reason(_ reason: ErrorReason) -> String { reason.rawValue }

    /// Every row of the error registry, the transport's first, in the contract's order.
    static var registry: [(reason: String, code: Int, summary: String)] {
        TransportError.allCases.map { ($0.reason, $0.rawValue, $0.summary) }
            + ErrorReason.allCases.filter { $0 != .invalidParams }.map { ($0.rawValue, number($0), summary($0)) }
    }

    /// The wire form of a domain answer.
    static func rpcError(_ error: DomainError) -> RPCError {
        if error.reason == .invalidParams, let input = error.input {
            return .invalidParams([problem(input, error.message)])
        }
        var data = JSONObject()
        for (key, value) in error.details { data.appendUnchecked(key.rawValue, json(value)) }
        return RPCError(code: code(error.reason), message: error.message, data: data)
    }

    /// Where an input the domain refused sits on the wire.
    static func problem(_ input: InvalidInput, _ message: String) -> ParamProblem {
        switch input {
        case .pinCodeLengths(let maxChanged):
            return ParamProblem(maxChanged ? "pinCodeLengthMax" : "pinCodeLengthMin", message)
        case .addOrUpdateAllowedBy(let proof, _):
            return ParamProblem("addOrUpdateAllowedBy.\(proof.rawValue)", message)
        case .recoveryKeys:
            return ParamProblem("keys", message)
        case .passkeyOrigin(let index):
            return ParamProblem("passkeyOrigins[\(index)]", message)
        case .importedPasskey(let index, let member):
            return ParamProblem("passkeys[\(index)].\(member)", message)
        case .newPasskey:
            return ParamProblem("passkey", message)
        case .passkeyAlgorithms:
            return ParamProblem("publicKey.pubKeyCredParams", message)
        case .browserOrigin:
            return ParamProblem("origin", message)
        case .templateText(let member), .operationText(let member):
            return ParamProblem(member, message)
        case .templateAttribute(let index):
            return ParamProblem("attributes[\(index)]", message)
        case .operationParameter(let name):
            return ParamProblem(memberPath("parameters", name), message)
        case .operationRegistration:
            return ParamProblem("registrationId", message)
        case .callbackURL:
            return ParamProblem("url", message)
        case .callbackSecret:
            return ParamProblem("secret", message)
        case .callbackDelivery:
            return ParamProblem("deliveryId", message)
        case .redirectUrlCharacters:
            return ParamProblem("redirectUrl", message)
        case .redirectUrl(let prefixes):
            // The operator's redirect list is not a secret: naming it tells the integrator what to register.
            let allowed =
                prefixes.isEmpty
                ? "none: the application's redirectUrlPrefixes is empty"
                : prefixes.joined(separator: ", ")
            return ParamProblem(
                "redirectUrl", "\(message) (allowed: \(allowed); admin/configureApplication sets them)",
                extra: JSONObject([("allowedPrefixes", .strings(prefixes))]))
        }
    }

    private static func json(_ detail: ErrorDetail) -> JSON {
        switch detail {
        case .int(let value): return .int(Int64(value))
        case .string(let value): return .string(value)
        case .bool(let value): return .bool(value)
        case .strings(let values): return .strings(values)
        }
    }
}
