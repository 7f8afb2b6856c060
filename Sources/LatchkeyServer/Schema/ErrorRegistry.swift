import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

/// The contract's error table: every reason with its numeric code. The one place codes live.
public enum ErrorRegistry {
    public struct Entry: Sendable {
        public var reason: String
        public var code: Int
        public var summary: String
    }

    public static let entries: [Entry] = [
        Entry(reason: "parseError", code: -32700, summary: "Not JSON, invalid UTF-8, duplicate keys, or nested deeper than 64; data.line and data.column say where."),
        Entry(reason: "invalidRequest", code: -32600, summary: "Not a Request object, or an empty batch."),
        Entry(reason: "methodNotFound", code: -32601, summary: "No such method."),
        Entry(reason: "invalidParams", code: -32602, summary: "The params do not fit the method; data.errors is [{path, message}]."),
        Entry(reason: "internalError", code: -32603, summary: "A bug; the process keeps serving."),
        Entry(reason: "messageTooLarge", code: -32000, summary: "The message exceeds --max-message-bytes and was skipped; data.limit."),
        Entry(reason: "notFound", code: 1000, summary: "No such thing; data.kind: device, user, registration, application, backup, session, message, authentication."),
        Entry(reason: "alreadyExists", code: 1001, summary: "It exists already."),
        Entry(reason: "forbidden", code: 1002, summary: "Closed by --no-admin, or clock/advance on a system clock."),
        Entry(reason: "policyViolation", code: 1003, summary: "A PIN or password breaks the policy; data.violations."),
        Entry(reason: "rateLimited", code: 1004, summary: "Too many attempts; data.retryAfterSeconds."),
        Entry(reason: "notActivatedLocally", code: 1100, summary: "The device holds no activation."),
        Entry(reason: "alreadyActivated", code: 1101, summary: "The device is activated already."),
        Entry(reason: "biometryUnavailable", code: 1102, summary: "The device has no such biometry."),
        Entry(reason: "biometryFailed", code: 1103, summary: "The device refused the face or finger; nothing counts."),
        Entry(reason: "biometryCancelled", code: 1104, summary: "The user cancelled the biometric prompt; nothing counts."),
        Entry(reason: "iCloudKeychainDisabled", code: 1105, summary: "An iCloud backup needs iCloud Keychain."),
        Entry(reason: "noSessionInProgress", code: 1200, summary: "No started operation to finish."),
        Entry(reason: "sessionExpired", code: 1201, summary: "The started operation is older than 300 s."),
        Entry(reason: "activationCodeInvalid", code: 1300, summary: "Unknown, used or foreign activation code."),
        Entry(reason: "activationCodeExpired", code: 1301, summary: "The activation code's lifetime is over."),
        Entry(reason: "authMethodNotAllowed", code: 1302, summary: "The method may not be used for this."),
        Entry(reason: "authenticationFailed", code: 1400, summary: "Wrong PIN or bad signature; data.remainingAttempts."),
        Entry(reason: "registrationLocked", code: 1401, summary: "Too many failed attempts; data.remainingAttempts is 0."),
        Entry(reason: "lockedByAdmin", code: 1402, summary: "An operator locked the registration."),
        Entry(reason: "registrationRemoved", code: 1403, summary: "The registration was removed or moved to another device."),
        Entry(reason: "verificationPending", code: 1404, summary: "Identity verification is not complete."),
        Entry(reason: "cannotDeactivateDevice", code: 1405, summary: "The device method cannot be deactivated."),
        Entry(reason: "tokenInvalid", code: 1500, summary: "Unknown, used, or another registration's token."),
        Entry(reason: "tokenExpired", code: 1501, summary: "The token's lifetime is over."),
        Entry(reason: "tokenPurposeMismatch", code: 1502, summary: "The token was issued for another purpose."),
        Entry(reason: "recoveryNotActivated", code: 1600, summary: "No recovery code is set."),
        Entry(reason: "recoveryCodeInvalid", code: 1601, summary: "Wrong recovery code; data.remainingAttempts."),
        Entry(reason: "recoveryLocked", code: 1602, summary: "Too many wrong recovery codes."),
        Entry(reason: "accountRecoveryNotAllowed", code: 1700, summary: "Not allowed in the current state; data.state."),
        Entry(reason: "userSessionInvalid", code: 1701, summary: "Unknown, ended or expired user session."),
        Entry(reason: "invalidCredentials", code: 1702, summary: "Wrong identifier or password."),
        Entry(reason: "onboardingInProgress", code: 1800, summary: "An onboarding process is running; data.wdoReason."),
        Entry(reason: "onboardingNotRunning", code: 1801, summary: "No onboarding process on this device; data.wdoReason."),
        Entry(reason: "onboardingCannotActivate", code: 1802, summary: "The device cannot be onboarded; data.wdoReason."),
        Entry(reason: "otpInvalid", code: 1803, summary: "Wrong OTP; data.allowOtpRetry, data.remainingAttempts."),
        Entry(reason: "otpExpired", code: 1804, summary: "The OTP's lifetime is over; does not count."),
        Entry(reason: "resendLimited", code: 1805, summary: "A resend too soon; data.retryAfterSeconds."),
        Entry(reason: "onboardingFailed", code: 1806, summary: "The onboarding process failed."),
        Entry(reason: "verificationCodeInvalid", code: 1900, summary: "Wrong verification code; data.remainingAttempts."),
        Entry(reason: "verificationCodeExpired", code: 1901, summary: "The verification code's lifetime is over."),
    ]

    private static let codes: [String: Int] = Dictionary(uniqueKeysWithValues: entries.map { ($0.reason, $0.code) })

    public static func code(for reason: String) -> Int { codes[reason] ?? -32603 }

    /// The wire form of a domain answer.
    public static func rpcError(_ error: DomainError) -> RPCError {
        var data = JSONObject()
        for (key, value) in error.details { data.appendUnchecked(key, json(value)) }
        return RPCError(code: code(for: error.reason.rawValue), reason: error.reason.rawValue, message: error.message, data: data)
    }

    private static func json(_ detail: ErrorDetail) -> JSON {
        switch detail {
        case .int(let value): return .int(Int64(value))
        case .string(let value): return .string(value)
        case .bool(let value): return .bool(value)
        case .strings(let values): return .strings(values)
        case .fieldErrors(let errors):
            return .array(errors.map { .object(JSONObject([("path", .string($0.path)), ("message", .string($0.message))])) })
        }
    }
}
