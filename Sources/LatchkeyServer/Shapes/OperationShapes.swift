import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

// The wire forms of operations: the operation object, its attributes (also read, in a template),
// and a template as `admin/configureOperationTemplate` answers it.

extension Operation: WireObject {
    public static let schemaName: String? = "Operation"
    public static let fields: [WireField<Self>] = [
        .required("operationId", \.operationId, .text),
        .required("userId", \.userId, .text),
        .required("applicationId", \.applicationId, .text),
        .nullable("registrationId", \.registrationId, .text, "the one phone that may approve it, or null"),
        .required("template", \.template, .text),
        .required("data", \.data, .text, "the operation data (PowerAuth's format, version A)"),
        .required("title", \.title, .text),
        .required("message", \.message, .text),
        .required("attributes", \.attributes, .operationAttributes),
        .required("status", \.status, .enumeration(OperationStatus.self)),
        .required("failureCount", \.failureCount, .int()),
        .required("maxFailureCount", \.maxFailureCount, .int()),
        .required("createdAt", \.createdAt, .time),
        .required("expiresAt", \.expiresAt, .time),
        .nullable("decidedAt", \.decidedAt, .time),
        .nullable("approvedWith", \.approvedWith, .enumeration(OperationApproval.self)),
        .nullable("rejectReason", \.rejectReason, .enumeration(OperationRejectReason.self)),
        .nullable("externalId", \.externalId, .text),
    ]
}

extension Codec where Value == OperationAttribute {
    /// `{type: "amount", label, amount, currency}`, `{type: "keyValue", label, value}`, `{type: "note", label, note}` or
    /// `{type: "heading", label}`.
    static let operationAttribute = Codec(
        schema: .named(
            "OperationAttribute",
            .object(
                [
                    Field("type", .enumeration(["amount", "keyValue", "note", "heading"]), required: true),
                    Field("label", .string(), required: true),
                    Field("amount", .string(), required: false, "type amount"),
                    Field("currency", .string(), required: false, "type amount"),
                    Field("value", .string(), required: false, "type keyValue"),
                    Field("note", .string(), required: false, "type note"),
                ], additional: false)),
        read: { json, path, problems in
            guard let object = json.object(at: path, into: &problems) else { return nil }
            let before = problems.count
            func text(_ name: String) -> String? {
                guard let value = object[name] else {
                    problems.append(ParamProblem("\(path).\(name)", "is required for this type"))
                    return nil
                }
                return Codec<String>.text.read(value, "\(path).\(name)", &problems)
            }
            guard let type = object["type"] else {
                problems.append(ParamProblem("\(path).type", "is required"))
                return nil
            }
            guard let kind = Codec<String>.text.read(type, "\(path).type", &problems) else { return nil }
            let members: [String]
            switch kind {
            case "amount": members = ["type", "label", "amount", "currency"]
            case "keyValue": members = ["type", "label", "value"]
            case "note": members = ["type", "label", "note"]
            case "heading": members = ["type", "label"]
            default:
                problems.append(ParamProblem("\(path).type", "must be one of amount, keyValue, note, heading"))
                return nil
            }
            // A null member counts as absent.
            for key in object.keys where !members.contains(key) && object[key]?.isNull == false {
                problems.append(
                    key.isQuotableKey
                        ? ParamProblem(memberPath(path, key), "is not a member of a \(kind) attribute")
                        : ParamProblem(path, "has a member that a \(kind) attribute does not have"))
            }
            let texts = members.dropFirst().map(text)
            guard problems.count == before else { return nil }
            let values = texts.compactMap { $0 }
            switch kind {
            case "amount": return .amount(label: values[0], amount: values[1], currency: values[2])
            case "keyValue": return .keyValue(label: values[0], value: values[1])
            case "note": return .note(label: values[0], note: values[1])
            default: return .heading(label: values[0])
            }
        },
        write: { attribute in
            var object = JSONObject([("type", .string(attribute.type)), ("label", .string(attribute.label))])
            switch attribute {
            case .amount(_, let amount, let currency):
                object.appendUnchecked("amount", .string(amount))
                object.appendUnchecked("currency", .string(currency))
            case .keyValue(_, let value): object.appendUnchecked("value", .string(value))
            case .note(_, let note): object.appendUnchecked("note", .string(note))
            case .heading: break
            }
            return .object(object)
        })
}

extension Codec where Value == [OperationAttribute] {
    static let operationAttributes = Codec.array(.operationAttribute)
}

extension OperationTemplate: WireObject {
    public static let schemaName: String? = "OperationTemplate"
    public static let fields: [WireField<Self>] = [
        .required("name", \.name, .text),
        .required("applicationId", \.applicationId, .text),
        .required("title", \.title, .text),
        .required("message", \.message, .text),
        .required("data", \.data, .text),
        .required("attributes", \.attributes, .operationAttributes),
        .required("maxFailureCount", \.maxFailureCount, .int()),
        .required("ttlSeconds", \.ttlSeconds, .integer()),
        .required("allowedMethods", \.allowedMethods, .array(.enumeration(OperationApproval.self))),
    ]
}

/// A template's parameters: string values by name, in the order given.
struct TemplateParameters: Sendable {
    var values: [(name: String, value: String)]
}

extension Codec where Value == TemplateParameters {
    /// `{name: value, …}`.
    static let templateParameters = Codec(
        schema: .described("values for the template's placeholders, by name; each a string", .object([], additional: true)),
        read: { json, path, problems in
            guard let object = json.object(at: path, into: &problems) else { return nil }
            let before = problems.count
            var values: [(name: String, value: String)] = []
            for entry in object.entries {
                guard case .string(let value) = entry.value else {
                    problems.append(ParamProblem(memberPath(path, entry.key), "must be a string, not \(entry.value.typeName)"))
                    continue
                }
                guard acceptsText(value, memberPath(path, entry.key), &problems) else { continue }
                values.append((entry.key, value))
            }
            return problems.count == before ? TemplateParameters(values: values) : nil
        },
        write: { parameters in .object(JSONObject(parameters.values.map { ($0.name, JSON.string($0.value)) })) })
}

extension Codec where Value == String {
    /// A template's name: 1–64 of `A–Z a–z 0–9 _ . -`.
    static let templateName = Codec.string(minLength: 1, maxLength: 64).checked {
        OperationTemplate.isValidName($0) ? nil : "must be 1 to 64 of A–Z a–z 0–9 _ . -"
    }

    /// An offline code: 8 digits, `-`, 8 digits.
    static let offlineCode = Codec.string(minLength: 17, maxLength: 17).checked {
        OfflineCode.isWellFormed($0) ? nil : "must be 8 digits, -, 8 digits"
    }
}

extension Codec where Value == [OperationApproval] {
    /// A non-empty subset of the approval methods.
    static let approvalMethods = Codec.array(.enumeration(OperationApproval.self), minItems: 1)
}

/// `{operations}`.
public struct ListedOperations: WireObject {
    public var operations: [Operation]
    public static let fields: [WireField<Self>] = [.required("operations", \.operations, .array(.object(Operation.self)))]
    public init(operations: [Operation]) { self.operations = operations }
}

/// What `server/operation/list` answers: the inbox and the key the phone keeps.
extension OperationInbox: WireObject {
    public static let fields: [WireField<Self>] = [
        .required("operations", \.operations, .array(.object(Operation.self))),
        .required("operationSigningKey", \.operationSigningKey, .publicKey, "the application's operation-signing key"),
    ]
}

/// What `server/operation/challenge` answers.
extension OperationChallenge: WireObject {
    public static let fields: [WireField<Self>] = [
        .required("challengeId", \.challengeId, .text), .required("challenge", \.challenge, .text),
        .required("expiresAt", \.expiresAt, .time),
        .required("operation", \.operation, .object(Operation.self)),
        .required("operationHash", \.operationHash, .text, "for diagnosis: the phone signs the hash of what it shows, never this"),
        .required("operationSigningKey", \.operationSigningKey, .publicKey),
        .required("serverPublicKey", \.serverPublicKey, .publicKey, "the registration's server key (offline approval)"),
    ]
}
