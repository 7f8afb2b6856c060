import LatchkeyContract

extension Latchkey {
    /// Reads an application; `default` exists from the start.
    func application(_ tx: StoreTransaction, _ applicationId: String?) throws -> ApplicationConfig {
        let id = applicationId ?? ApplicationConfig.defaultApplicationId
        if let record = try tx.fetch(ApplicationRecord.self, id: id) { return record.config }
        if id == ApplicationConfig.defaultApplicationId { return .defaults(id) }
        throw DomainError.notFound("application")
    }

    /// An application's configuration.
    /// - Throws: `notFound` (application).
    public func applicationConfig(_ applicationId: String?) throws -> ApplicationConfig {
        try inspect { tx in try application(tx, applicationId) }
    }

    /// Creates or changes an application.
    ///
    /// The values come within `ApplicationConfig.bounds` (the wire checks them); the rules between values are checked here.
    /// - Throws: `invalidParams` (the PIN length bounds cross; a single-factor method may not add a two-factor one).
    public func configureApplication(_ applicationId: String, _ changes: ApplicationChanges) throws -> ApplicationConfig {
        try transact { tx, effects in
            var config = (try tx.fetch(ApplicationRecord.self, id: applicationId))?.config ?? .defaults(applicationId)
            config.apply(changes)
            guard config.pinCodeLengthMin <= config.pinCodeLengthMax else {
                // The message follows the field it is filed under (the one this call changed).
                let maxChanged = changes.pinCodeLengthMax != nil
                throw DomainError.invalid(
                    .pinCodeLengths(maxChanged: maxChanged),
                    maxChanged ? "must not be less than pinCodeLengthMin" : "must not exceed pinCodeLengthMax")
            }
            if let twoFactor = config.addOrUpdateAllowedBy[.device]?.first(where: \.isTwoFactor) {
                throw DomainError.invalid(
                    .addOrUpdateAllowedBy(proof: .device, adds: twoFactor),
                    "a single-factor method may not add \(twoFactor.rawValue)")
            }
            if let (index, problem) = config.relyingParty.originProblem() {
                throw DomainError.invalid(.passkeyOrigin(index: index), problem)
            }
            try tx.save(ApplicationRecord(config))
            try audit(tx, effects, .applicationConfigured, detail: applicationId)
            return config
        }
    }
}

extension Latchkey {
    /// Checks a PIN against an application's policy.
    /// - Throws: `notFound` (application).
    public func validatePin(_ pin: String, applicationId: String?) throws -> [PinViolation] {
        try applicationConfig(applicationId).pinRules.violations(pin)
    }
}
