/// Every method of the contract, in the order the OpenRPC document lists them.
enum MethodRegistry {
    /// The methods as the dispatch table and the documents hold them.
    static let entries: [MethodEntry] = MetaMethods.all + DeliveryMethods.all + AdminMethods.all + DeviceMethods.all
        + ActivationMethods.all + RecoveryMethods.all + AccountMethods.all + ResetMethods.all + passkeyMethods + OnboardingMethods.all
        + ServerMethods.all

    /// Passkeys (WebAuthn): the Relying Party's ceremonies and the simulated phone's authenticator.
    static let passkeyMethods: [MethodEntry] = [
        .init(PasskeyCreationOptions.self), .init(PasskeyCreate.self), .init(PasskeyRequestOptions.self), .init(PasskeyLogin.self),
        .init(PasskeyRemove.self), .init(DevicePasskeyCreate.self), .init(DevicePasskeyGet.self),
    ]

    private static let table: [String: MethodEntry] = Dictionary(entries.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })

    static func entry(named name: String) -> MethodEntry? { table[name] }
}
