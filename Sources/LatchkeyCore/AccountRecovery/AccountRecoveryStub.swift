extension Latchkey {
    func accountRecoveryNextDue() -> UnixTime? { nil }
    func runDueAccountRecoveryTransitions() throws {}
}
