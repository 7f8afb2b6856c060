import LatchkeyContract

/// Which user onboarding credentials name: every identifier looked up, all naming one user, at the same cost whether or not
/// they do (security property 11).
extension Latchkey {
    /// What starting an onboarding process reads (`ServerSession.startOnboarding`): the
    /// application, the caller's processes, and the users the credentials name.
    public func onboardingStartReads(credentials: OnboardingCredentials, applicationId: String?, caller: Caller) -> [StoreRead] {
        [
            .row(ApplicationRecord.self, id: applicationId ?? ApplicationConfig.defaultApplicationId),
            .rows(OnboardingProcessRecord.openOf.query(caller.key)),
        ]
            + Self.identifiers(credentials).map(\.lookup.read)
    }

    /// The identifiers credentials give, in the order they are matched.
    private static func identifiers(_ credentials: OnboardingCredentials) -> [UserIdentifier] {
        [
            credentials.email.map(UserIdentifier.email), credentials.phoneNumber.map(UserIdentifier.phoneNumber),
            credentials.loginName.map(UserIdentifier.loginName), credentials.userId.map(UserIdentifier.userId),
        ].compactMap { $0 }
    }

    /// The user the credentials name, or nil (the answer to the caller is the same either way).
    func matchCredentials(_ tx: StoreTransaction, _ credentials: OnboardingCredentials) throws -> UserRecord? {
        // Every identifier is looked up, whatever the ones before it found (security property 11), each balanced with COMMIT by a
        // read of the decoy user or of no one (`userTellingNothing`); all must name one user. One decoy for every identifier (a
        // lookup that finds someone makes them the next call's decoy).
        let decoy = decoyUserId
        let looked = try Self.identifiers(credentials).map { try userTellingNothing(tx, matching: $0, decoy: decoy) }
        // The same comparisons either way; an identifier that names no one matches no one.
        let first = looked.first ?? nil
        let sameRecord = looked.allSatisfy { ($0?.id ?? Self.nobody).isSameId(as: first?.id ?? Self.nobody) }
        let birthDateFits = credentials.birthDate.map { first?.birthDate == $0 } ?? true
        let everyOneFound = looked.allSatisfy { $0 != nil }
        guard sameRecord, birthDateFits, everyOneFound, let matched = first else { return nil }
        return matched
    }
}
