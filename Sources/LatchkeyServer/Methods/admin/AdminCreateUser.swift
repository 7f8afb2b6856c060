import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

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
    struct Params: WireParams {
        let userId: String?
        let loginName: String?
        let email: String?
        let phoneNumber: String?
        let password: String?
        let birthDate: String?
        let passkeys: [ImportedPasskey]?
        let passkeyUserHandle: [UInt8]?
        let attributes: JSON?
        static let wire = (
            userId: WireMember.optional("userId", .newIdentifier),
            loginName: WireMember.optional("loginName", .newIdentifier, "unique like email, compared exactly"),
            email: WireMember.optional("email", .email), phoneNumber: WireMember.optional("phoneNumber", .phoneNumber, "E.164"),
            password: WireMember.optional("password", .text), birthDate: WireMember.optional("birthDate", .date, "YYYY-MM-DD"),
            passkeys: WireMember.optional(
                "passkeys", .array(.importedPasskey, maxItems: Latchkey.maxPasskeysPerUser),
                "passkeys registered with another Relying Party, at most 25 (as many as a user may hold)"),
            passkeyUserHandle: WireMember.optional("passkeyUserHandle", .userHandle, "1–64 bytes, unpadded base64url (default: 32 random bytes)"),
            attributes: WireMember.optional("attributes", .freeObject)
        )
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
