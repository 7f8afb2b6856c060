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
        var user = NewUser()
        var passkeys: [PasskeyName]?
        var attributes: JSON?
        static let fields: [WireField<Self>] = [
            .optional("userId", \.user.userId, .identifier),
            .optional("loginName", \.user.loginName, .identifier, "unique like email, compared exactly"),
            .optional("email", \.user.email, .email),
            .optional("phoneNumber", \.user.phoneNumber, .phoneNumber, "E.164"),
            .optional("password", \.user.password, .text),
            .optional("birthDate", \.user.birthDate, .date, "YYYY-MM-DD"),
            .optional("passkeys", \.passkeys, .array(.object(PasskeyName.self))),
            .optional("attributes", \.attributes, .freeObject),
        ]
    }
    static let result = Codec.member("userId", .text)
    static func handle(_ params: Params, _ context: CallContext) throws -> String {
        var user = params.user
        user.passkeys = params.passkeys?.map(\.friendlyName) ?? []
        user.attributes = params.attributes.map(JSONSerializer.string)
        return try context.core.createUser(user)
    }
}
