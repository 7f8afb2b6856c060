/// Every method of the contract, in the order the OpenRPC document lists them.
enum MethodRegistry {
    /// The methods as the dispatch table and the documents hold them.
    static let entries: [MethodEntry] = MetaMethods.all + DeliveryMethods.all + AdminMethods.all + DeviceMethods.all
        + ActivationMethods.all + RecoveryMethods.all + AccountMethods.all + ResetMethods.all + OnboardingMethods.all
        + ServerMethods.all

    private static let table: [String: MethodEntry] = Dictionary(entries.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })

    static func entry(named name: String) -> MethodEntry? { table[name] }
}
