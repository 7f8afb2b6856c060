/// Every method of the contract, in the order the OpenRPC document lists them.
enum MethodRegistry {
    static let all: [MethodSpec] = MetaMethods.all + DeliveryMethods.all + AdminMethods.all + DeviceMethods.all
        + ActivationMethods.all + RecoveryMethods.all + AccountMethods.all + OnboardingMethods.all
}
