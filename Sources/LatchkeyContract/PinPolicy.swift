/// A rule of the PIN policy that a PIN breaks.
public enum PinViolation: String, Sendable, CaseIterable {
    case tooShort, tooLong, notNumeric, notAlphanumeric
}

extension PinRules {
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
    public func check(_ pin: String) throws {
        let found = violations(pin).map(\.rawValue)
        guard found.isEmpty else {
            throw DomainError(
                .policyViolation, "The PIN does not meet the policy: \(found.joined(separator: ", "))",
                [(.violations, .strings(found))])
        }
    }
}
