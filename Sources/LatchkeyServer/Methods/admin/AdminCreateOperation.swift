import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum AdminCreateOperation: RPCMethod {
    static let declaration = MethodDeclaration(
        "admin/createOperation", "Creates an operation for a user from a template, pending.",
        description: """
            Fills the template's placeholders from parameters (strings; a placeholder without a parameter, or a parameter no \
            placeholder uses, answers invalidParams naming parameters.<name>): a value filled into data is escaped (\\ → \\\\, \
            * → \\*, a newline → \\n) so no parameter adds a field. The filled title (≤ 256 bytes), message (≤ 1 024 bytes) and \
            data (operation data, version A: ≤ 255 bytes, at most 5 fields, amounts, IBANs with their mod-97 check, real dates) \
            must keep their rules. What an attribute lists is that part of data: an amount attribute's amount must be digits \
            with at most one dot and its currency three capital letters, a value listed as one comma-separated part of a field \
            that several placeholders share holds no comma (else invalidParams naming the parameter); no parameter adds a \
            field (else invalidParams naming data). registrationId binds the operation to one phone (the \
            user's, of the application, not removed). Announced on the operations topic and to callbacks.
            """,
        errors: [.notFound], access: .admin)
    struct Params: WireParams {
        let userId: String
        let template: String
        let parameters: TemplateParameters?
        let registrationId: String?
        let externalId: String?
        let ttlSeconds: Int64?
        let applicationId: String?
        static let wire = (
            userId: WireMember.required("userId", .identifier), template: WireMember.required("template", .templateName),
            parameters: WireMember.optional("parameters", .templateParameters),
            registrationId: WireMember.optional("registrationId", .identifier, "binds the operation to this phone"),
            externalId: WireMember.optional("externalId", .string(maxLength: 128), "the back end's own reference (not unique)"),
            ttlSeconds: WireMember.optional("ttlSeconds", .integer(minimum: 30, maximum: 86_400), "default: the template's"),
            applicationId: WireMember.applicationId
        )
    }
    typealias Result = Operation
    static func handle(_ params: Params, _ context: CallContext) throws -> Operation {
        try context.core.createOperation(
            NewOperation(
                userId: params.userId, template: params.template, parameters: params.parameters?.values ?? [],
                registrationId: params.registrationId, externalId: params.externalId, ttlSeconds: params.ttlSeconds,
                applicationId: params.applicationId))
    }
}
