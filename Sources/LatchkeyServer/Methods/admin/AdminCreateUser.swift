import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC

enum AdminCreateUser: RPCMethod {
    static let declaration = MethodDeclaration(
        "admin/createUser", "Creates a user (userId generated when absent).",
        description: """
            Creates a user with any of userId (generated when absent), loginName, email, phoneNumber, password, \
            birthDate, passkeys registered with another Relying Party (credential id and COSE public key), the user's \
            passkey user handle and free attributes. A userId, email, phone number, loginName or credential id already \
            taken answers alreadyExists; a passkey key a registration would refuse answers invalidParams naming the entry. \
            The first step of every activation flow.
            """,
        errors: [.alreadyExists], access: .admin)
    struct Params: WireReadable {
        var userId: String?
        var loginName: String?
        var email: String?
        var phoneNumber: String?
        var password: String?
        var birthDate: String?
        var passkeys: [ImportedPasskey]?
        var passkeyUserHandle: [UInt8]?
        var attributes: JSON?
        static let fields: [WireField<Self>] = [
            .optional("userId", \.userId, .identifier),
            .optional("loginName", \.loginName, .identifier, "unique like email, compared exactly"),
            .optional("email", \.email, .email),
            .optional("phoneNumber", \.phoneNumber, .phoneNumber, "E.164"),
            .optional("password", \.password, .text),
            .optional("birthDate", \.birthDate, .date, "YYYY-MM-DD"),
            .optional("passkeys", \.passkeys, .array(.importedPasskey), "passkeys registered with another Relying Party"),
            .optional("passkeyUserHandle", \.passkeyUserHandle, .userHandle, "1–64 bytes, unpadded base64url (default: 32 random bytes)"),
            .optional("attributes", \.attributes, .freeObject),
        ]
    }
    static let result = Codec.member("userId", .text)
    static func handle(_ params: Params, _ context: CallContext) throws -> String {
        try context.core.createUser(
            NewUser(
                userId: params.userId, email: params.email, phoneNumber: params.phoneNumber, password: params.password,
                birthDate: params.birthDate, passkeys: params.passkeys ?? [], passkeyUserHandle: params.passkeyUserHandle,
                attributes: params.attributes.map(JSONSerializer.string), loginName: params.loginName))
    }
}
