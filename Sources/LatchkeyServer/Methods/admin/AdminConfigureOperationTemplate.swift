import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

enum AdminConfigureOperationTemplate: RPCMethod {
    static let declaration = MethodDeclaration(
        "admin/configureOperationTemplate", "Creates or replaces an operation template of an application.",
        description: """
            Says what operations of one kind look like: title, message and data (PowerAuth's operation-data string, version A) \
            are texts with ${param} placeholders that admin/createOperation fills; attributes are what the phone lists (amount, \
            keyValue, note, heading), and a placeholder used in one must also occur in data, and what one renders besides its \
            label (amount, currency, value, note) is placeholders and text written out in data (attributes render data and add \
            nothing to it). A backslash in data's own text escapes *, \\ or n (a filled value is escaped as it goes in, so no \
            backslash may wait for it). maxFailureCount (1–10, default 5), ttlSeconds (30–86 400, default 300) and allowedMethods (pin, \
            touchId, faceId, passkey, offline; default all but passkey) apply to the operations made from it. A template of the \
            same name is replaced.
            """,
        errors: [.notFound], access: .admin)
    struct Params: WireParams {
        let name: String
        let title: String
        let message: String
        let data: String
        let attributes: [OperationAttribute]?
        let maxFailureCount: Int
        let ttlSeconds: Int64
        let allowedMethods: [OperationApproval]
        let applicationId: String?
        static let wire = (
            name: WireMember.required("name", .templateName), title: WireMember.required("title", .text, "with ${param} placeholders"),
            message: WireMember.required("message", .text, "with ${param} placeholders"),
            data: WireMember.required("data", .text, "operation data (version A) with ${param} placeholders"),
            attributes: WireMember.optional("attributes", .operationAttributes, "what the phone lists; each renders part of data"),
            maxFailureCount: WireMember.defaulted(
                "maxFailureCount", .int(minimum: 1, maximum: 10), default: OperationTemplate.defaultMaxFailureCount),
            ttlSeconds: WireMember.defaulted(
                "ttlSeconds", .integer(minimum: 30, maximum: 86_400), default: OperationTemplate.defaultTtlSeconds),
            allowedMethods: WireMember.defaulted("allowedMethods", .approvalMethods, default: OperationTemplate.defaultAllowedMethods),
            applicationId: WireMember.applicationId
        )
    }
    typealias Result = OperationTemplate
    static func handle(_ params: Params, _ context: CallContext) throws -> OperationTemplate {
        var methods: [OperationApproval] = []
        for method in params.allowedMethods where !methods.contains(method) { methods.append(method) }
        return try context.core.configureOperationTemplate(
            OperationTemplate(
                applicationId: params.applicationId ?? ApplicationConfig.defaultApplicationId, name: params.name, title: params.title,
                message: params.message, data: params.data, attributes: params.attributes ?? [], maxFailureCount: params.maxFailureCount,
                ttlSeconds: params.ttlSeconds, allowedMethods: methods))
    }
}
