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

    /// Creates or changes an application; values outside the contract's bounds are refused.
    /// - Throws: `invalidParams` naming the field.
    public func configureApplication(_ applicationId: String, _ changes: ApplicationChanges) throws -> ApplicationConfig {
        try transact { tx, effects in
            var config = (try tx.fetch(ApplicationRecord.self, id: applicationId))?.config ?? .defaults(applicationId)
            if let value = changes.activationCodeLength {
                guard (6...32).contains(value) else { throw DomainError.invalidParam("activationCodeLength", "must be from 6 to 32") }
                config.activationCodeLength = value
            }
            if let value = changes.activationCodeType { config.activationCodeType = value }
            if let value = changes.activationCodeTtlSeconds {
                guard value >= 1 else { throw DomainError.invalidParam("activationCodeTtlSeconds", "must be at least 1") }
                config.activationCodeTtlSeconds = value
            }
            if let value = changes.pinCodeType { config.pinCodeType = value }
            if let value = changes.pinCodeLengthMin {
                guard value >= 4, value <= 64 else { throw DomainError.invalidParam("pinCodeLengthMin", "must be from 4 to 64") }
                config.pinCodeLengthMin = value
            }
            if let value = changes.pinCodeLengthMax {
                guard value >= 4, value <= 64 else { throw DomainError.invalidParam("pinCodeLengthMax", "must be from 4 to 64") }
                config.pinCodeLengthMax = value
            }
            guard config.pinCodeLengthMin <= config.pinCodeLengthMax else {
                throw DomainError.invalidParam(changes.pinCodeLengthMax != nil ? "pinCodeLengthMax" : "pinCodeLengthMin",
                                               "pinCodeLengthMin must not exceed pinCodeLengthMax")
            }
            if let value = changes.maxFailedAttempts {
                guard (3...10).contains(value) else { throw DomainError.invalidParam("maxFailedAttempts", "must be from 3 to 10") }
                config.maxFailedAttempts = value
            }
            if let value = changes.authMethods {
                // `device` is what every registration stands on: it is always enabled.
                config.authMethods = AuthMethod.canonical(value + [.device])
            }
            if let value = changes.addOrUpdateAllowedBy {
                if let twoFactor = value[.device]?.first(where: \.isTwoFactor) {
                    throw DomainError.invalidParam("addOrUpdateAllowedBy.device", "a single-factor method may not add \(twoFactor.rawValue)")
                }
                config.addOrUpdateAllowedBy = value.mapValues { AuthMethod.canonical($0) }
            }
            if let value = changes.tokenTtlSeconds {
                guard (30...900).contains(value) else { throw DomainError.invalidParam("tokenTtlSeconds", "must be from 30 to 900") }
                config.tokenTtlSeconds = value
            }
            if let value = changes.redirectUrlPrefixes {
                if let index = value.firstIndex(where: \.isEmpty) {
                    throw DomainError.invalidParam("redirectUrlPrefixes[\(index)]", "must not be empty")
                }
                config.redirectUrlPrefixes = value
            }
            try tx.save(ApplicationRecord(config))
            try audit(tx, effects, .applicationConfigured, detail: applicationId)
            return config
        }
    }
}
