import LatchkeyJSON

/// The shape of a parameter or result: drives params validation and the OpenRPC document,
/// so the two cannot disagree.
public indirect enum Schema: Sendable {
    case string(minLength: Int? = nil, maxLength: Int? = nil, format: String? = nil)
    case integer(minimum: Int64? = nil, maximum: Int64? = nil)
    case number
    case boolean
    case any
    case null
    case enumeration([String])
    case integerEnumeration([Int64])
    case array(Schema, minItems: Int? = nil)
    case object([Field], additional: Bool = true)
    /// A free-form object (any members).
    case freeObject
    case nullable(Schema)
    /// A schema with a name in `components.schemas` (referenced, not repeated, in the document).
    case named(String, Schema)
    case oneOf([Schema])

    public static let text: Schema = .string()
    public static func object(_ fields: Field...) -> Schema { .object(fields) }
}

/// One member of an object schema.
public struct Field: Sendable {
    public var name: String
    public var schema: Schema
    public var required: Bool
    public var summary: String

    public init(_ name: String, _ schema: Schema, required: Bool = true, _ summary: String = "") {
        self.name = name
        self.schema = schema
        self.required = required
        self.summary = summary
    }

    /// An optional member.
    public static func optional(_ name: String, _ schema: Schema, _ summary: String = "") -> Field {
        Field(name, schema, required: false, summary)
    }
}

extension Schema {
    /// Checks `value` against this schema; every problem with its dotted path.
    func validate(_ value: JSON, at path: String, into errors: inout [(path: String, message: String)]) {
        switch self {
        case .any:
            return
        case .named(_, let inner):
            inner.validate(value, at: path, into: &errors)
        case .nullable(let inner):
            if !value.isNull { inner.validate(value, at: path, into: &errors) }
        case .null:
            if !value.isNull { errors.append((path, "must be null, not \(value.typeName)")) }
        case .string(let minLength, let maxLength, _):
            guard case .string(let text) = value else {
                errors.append((path, "must be a string, not \(value.typeName)"))
                return
            }
            let length = text.count
            if let minLength, length < minLength { errors.append((path, "must have at least \(minLength) characters")) }
            if let maxLength, length > maxLength { errors.append((path, "must have at most \(maxLength) characters")) }
        case .integer(let minimum, let maximum):
            guard let number = value.intValue else {
                errors.append((path, "must be an integer, not \(value.typeName)"))
                return
            }
            if let minimum, number < minimum { errors.append((path, "must be at least \(minimum)")) }
            if let maximum, number > maximum { errors.append((path, "must be at most \(maximum)")) }
        case .number:
            switch value {
            case .int, .double: return
            default: errors.append((path, "must be a number, not \(value.typeName)"))
            }
        case .boolean:
            if value.boolValue == nil { errors.append((path, "must be a boolean, not \(value.typeName)")) }
        case .enumeration(let allowed):
            guard case .string(let text) = value else {
                errors.append((path, "must be one of \(allowed.joined(separator: ", ")), not \(value.typeName)"))
                return
            }
            if !allowed.contains(text) { errors.append((path, "must be one of \(allowed.joined(separator: ", "))")) }
        case .integerEnumeration(let allowed):
            guard let number = value.intValue, allowed.contains(number) else {
                errors.append((path, "must be one of \(allowed.map(String.init).joined(separator: ", "))"))
                return
            }
        case .array(let item, let minItems):
            guard case .array(let items) = value else {
                errors.append((path, "must be an array, not \(value.typeName)"))
                return
            }
            if let minItems, items.count < minItems { errors.append((path, "must have at least \(minItems) items")) }
            for (index, element) in items.enumerated() {
                item.validate(element, at: "\(path)[\(index)]", into: &errors)
            }
        case .freeObject:
            if value.objectValue == nil { errors.append((path, "must be an object, not \(value.typeName)")) }
        case .object(let fields, _):
            guard case .object(let object) = value else {
                errors.append((path, "must be an object, not \(value.typeName)"))
                return
            }
            Schema.validateMembers(object, fields: fields, at: path, into: &errors)
        case .oneOf(let options):
            for option in options {
                var optionErrors: [(path: String, message: String)] = []
                option.validate(value, at: path, into: &optionErrors)
                if optionErrors.isEmpty { return }
            }
            errors.append((path, "does not match any allowed form"))
        }
    }

    static func validateMembers(_ object: JSONObject, fields: [Field], at path: String,
                                into errors: inout [(path: String, message: String)]) {
        for field in fields {
            let fieldPath = path.isEmpty ? field.name : "\(path).\(field.name)"
            guard let member = object[field.name] else {
                if field.required { errors.append((fieldPath, "is required")) }
                continue
            }
            // An optional member given as null counts as absent.
            if !field.required, member.isNull, !field.schema.acceptsNull { continue }
            field.schema.validate(member, at: fieldPath, into: &errors)
        }
    }

    var acceptsNull: Bool {
        switch self {
        case .any, .null, .nullable: return true
        case .named(_, let inner): return inner.acceptsNull
        default: return false
        }
    }
}
