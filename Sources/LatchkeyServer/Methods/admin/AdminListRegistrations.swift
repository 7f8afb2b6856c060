import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum AdminListRegistrations: RPCMethod {
    static let declaration = MethodDeclaration(
        "admin/listRegistrations", "Every registration of a user, oldest first.",
        description: "Lists every registration of a user, oldest first, each as admin/getRegistration reads it.",
        errors: [.notFound], access: .admin)
    struct Params: WireParams {
        let userId: String
        static let wire = WireMember.required("userId", .identifier)
    }
    static let result = Codec.member("registrations", .array(.object(RegistrationInfo.self)))
    static func handle(_ params: Params, _ context: CallContext) throws -> [RegistrationInfo] {
        try context.core.registrations(userId: params.userId)
    }
}
