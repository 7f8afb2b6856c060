import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeySimulator
import LatchkeyJSON
import LatchkeyRPC

enum AdminCreateUser: RPCMethod {
    static let declaration = MethodDeclaration(
        "admin/createUser", "Creates a user (userId generated when absent).",
        description: """
        Creates a user with any of userId (generated when absent), loginName, email, phoneNumber, password, \
        birthDate, passkeys and free attributes. A userId, email, phone number or loginName already taken answers \
        alreadyExists. The first step of every activation flow.
        """,
        errors: [.alreadyExists], access: .admin)
    struct Params: WireReadable {
        var userId: String?
        var loginName: String?
        var email: String?
        var phoneNumber: String?
        var password: String?
        var birthDate: String?
        var passkeys: [PasskeyName]?
        var attributes: JSON?
        static let fields: [WireField<Self>] = [
            .optional("userId", \.userId, .identifier),
            .optional("loginName", \.loginName, .identifier, "unique like email, compared exactly"),
            .optional("email", \.email, .email),
            .optional("phoneNumber", \.phoneNumber, .phoneNumber, "E.164"),
            .optional("password", \.password, .text),
            .optional("birthDate", \.birthDate, .date, "YYYY-MM-DD"),
            .optional("passkeys", \.passkeys, .array(.object(PasskeyName.self))),
            .optional("attributes", \.attributes, .freeObject),
        ]
    }
    static let result = Codec.member("userId", .text)
    static func handle(_ params: Params, _ context: CallContext) throws -> String {
        try context.core.createUser(NewUser(
            userId: params.userId, email: params.email, phoneNumber: params.phoneNumber, password: params.password,
            birthDate: params.birthDate, passkeys: params.passkeys.map { $0.map(\.friendlyName) } ?? [],
            attributes: params.attributes.map(JSONSerializer.string), loginName: params.loginName))
    }
}
