import LatchkeyContract

extension Latchkey {
    /// What the operations a device calls on the server half read (`ServerSession`).
    ///
    /// For a caller that states them at the start of its transaction before it knows which one it
    /// calls: a simulated phone, whose ids are in its keychain. `registrations` and `processes` find the
    /// registrations and onboarding processes it holds; the activations it opened are found by
    /// `caller`. Through them: the codes and processes those activations came from, and the
    /// applications and users of them all, each table in one statement, and the server's keys of the
    /// registrations and applications (what a challenge, an activation and an operation answer with).
    /// A read the call does not make costs a statement, never a round trip.
    public static func deviceReads(caller: Caller, registrations: StoreKey, processes: StoreKey) -> [StoreRead] {
        let activations = StoreKey.ids(of: ActivationRecord.self, where: [.equals(ActivationRecord.Columns.caller, caller.key)])
        let codes = StoreKey.column(ActivationRecord.Columns.codeId, of: ActivationRecord.self, activations)
        let held = StoreKey.either(processes, .column(ActivationRecord.Columns.processId, of: ActivationRecord.self, activations))
        let registrations = StoreKey.either(
            registrations, .column(OnboardingProcessRecord.Columns.registrationId, of: OnboardingProcessRecord.self, held))
        let applications = StoreKey.either(
            .column(RegistrationRecord.Columns.applicationId, of: RegistrationRecord.self, registrations),
            .either(
                .column(ActivationCodeRecord.Columns.applicationId, of: ActivationCodeRecord.self, codes),
                .column(OnboardingProcessRecord.Columns.applicationId, of: OnboardingProcessRecord.self, held)))
        let users = StoreKey.either(
            .column(RegistrationRecord.Columns.userId, of: RegistrationRecord.self, registrations),
            .either(
                .column(ActivationCodeRecord.Columns.userId, of: ActivationCodeRecord.self, codes),
                .column(OnboardingProcessRecord.Columns.userId, of: OnboardingProcessRecord.self, held)))
        return [
            .row(RegistrationRecord.self, id: registrations), .rows(ChallengeRecord.ofRegistration, registrations),
            .rows(pendingPushes, registrations), .rows(ActivationRecord.openedBy, .value(caller.key)), .row(ActivationCodeRecord.self, id: codes),
            .row(OnboardingProcessRecord.self, id: held), .row(ApplicationRecord.self, id: applications), .row(UserRecord.self, id: users),
            .row(RegistrationKeyRecord.self, id: registrations), .row(ApplicationKeyRecord.self, id: applications),
        ]
    }
}
