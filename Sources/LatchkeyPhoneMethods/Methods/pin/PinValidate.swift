import LatchkeyContract
import LatchkeyCore
import LatchkeyDevice
import LatchkeyServer
import LatchkeyWire

enum PinValidate: RPCMethod {
    static let declaration = MethodDeclaration(
        "pin/validate", "Checks a PIN against the application's policy.",
        description: """
            Checks a candidate PIN against the application's PIN policy (numeric or alphanumeric, minimum and maximum \
            length) and lists every violation. Stores nothing; the same policy applies in activation/finish and \
            authMethod/finishAddOrUpdate.
            """,
        errors: [.notFound])
    struct Params: WireParams {
        let pin: String
        let applicationId: String?
        static let wire = (pin: WireMember.required("pin", .text), applicationId: WireMember.applicationId)
    }
    struct Result: WireObject {
        var violations: [PinViolation]
        var valid: Bool { violations.isEmpty }
        static let fields: [WireField<Self>] = [
            .computed("valid", \.valid, .bool), .required("violations", \.violations, .array(.enumeration(PinViolation.self))),
        ]
    }
    static func handle(_ params: Params, _ context: CallContext) throws -> Result {
        Result(violations: try context.core.validatePin(params.pin, applicationId: params.applicationId))
    }
}
