/// A rule of the PIN policy that a PIN breaks.
public enum PinViolation: String, Sendable, CaseIterable {
    case tooShort, tooLong, notNumeric, notAlphanumeric
}

/// An application's PIN rules.
public struct PinPolicy: Sendable {
    public var type: PinCodeType
    public var minLength: Int
    public var maxLength: Int

    init(_ config: ApplicationConfig) {
        type = config.pinCodeType
        minLength = config.pinCodeLengthMin
        maxLength = config.pinCodeLengthMax
    }

    /// The rules `pin` breaks: `tooShort`, `tooLong`, `notNumeric`, `notAlphanumeric`.
    public func violations(_ pin: String) -> [PinViolation] {
        var found: [PinViolation] = []
        let length = pin.count
        if length < minLength { found.append(.tooShort) }
        if length > maxLength { found.append(.tooLong) }
        switch type {
        case .numeric:
            if !pin.allSatisfy({ $0.isASCII && $0.isNumber }) { found.append(.notNumeric) }
        case .alphanumeric:
            if !pin.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) { found.append(.notAlphanumeric) }
        }
        return found
    }

    /// - Throws: `policyViolation` with `data.violations`.
    func check(_ pin: String) throws {
        let found = violations(pin)
        guard found.isEmpty else {
            let names = found.map(\.rawValue)
            throw DomainError(.policyViolation, "The PIN does not meet the policy: \(names.joined(separator: ", "))",
                              [("violations", .strings(names))])
        }
    }
}

extension Latchkey {
    /// Checks a PIN against an application's policy.
    public func validatePin(_ pin: String, applicationId: String?) throws -> [PinViolation] {
        PinPolicy(try applicationConfig(applicationId)).violations(pin)
    }
}
