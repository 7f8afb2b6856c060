import LatchkeyContract
import LatchkeyJSON

/// The shape of a value on the wire, as JSON Schema describes it.
///
/// Codecs build it; the OpenRPC document, the MCP tool list and the result check read it.
public indirect enum Schema: Sendable {
    case string(minLength: Int? = nil, maxLength: Int? = nil, format: String? = nil)
    case integer(minimum: Int64? = nil, maximum: Int64? = nil)
    case number
    case boolean
    case any
    case null
    case enumeration([String])
    case integerEnumeration([Int64])
    case array(Schema, minItems: Int? = nil, maxItems: Int? = nil)
    case object([Field], additional: Bool = true)
    /// A free-form object (any members).
    case freeObject
    case nullable(Schema)
    /// A schema with a name in `components.schemas` (referenced, not repeated, in the document).
    case named(String, Schema)
    case oneOf([Schema])
    /// A schema with a description.
    case described(String, Schema)
    /// An optional member's schema with the value taken when it is left out.
    case defaulted(JSON, Schema)
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
}

extension Schema {
    /// The schema without names, descriptions and defaults around it.
    var bare: Schema {
        switch self {
        case .named(_, let inner), .described(_, let inner), .defaulted(_, let inner): return inner.bare
        default: return self
        }
    }

    /// Checks a value the server wrote against this schema, strictly: objects may hold no member the schema does not name.
    ///
    /// Every mismatch with its path (for the contract check).
    public func mismatches(_ value: JSON, at path: String = "result") -> [String] {
        var found: [String] = []
        check(value, at: path, into: &found)
        return found
    }

    private func check(_ value: JSON, at path: String, into found: inout [String]) {
        switch bare {
        case .any: return
        case .null: if !value.isNull { found.append("\(path) must be null, not \(value.typeName)") }
        case .string(let minLength, let maxLength, _):
            guard case .string(let text) = value else { return found.append("\(path) must be a string, not \(value.typeName)") }
            if let minLength, text.unicodeScalars.count < minLength { found.append("\(path) is shorter than \(minLength)") }
            if let maxLength, text.unicodeScalars.count > maxLength { found.append("\(path) is longer than \(maxLength)") }
        case .integer(let minimum, let maximum):
            guard case .int(let number) = value else { return found.append("\(path) must be an integer, not \(value.typeName)") }
            if let minimum, number < minimum { found.append("\(path) is below \(minimum)") }
            if let maximum, number > maximum { found.append("\(path) is above \(maximum)") }
        case .number:
            switch value {
            case .int, .double: return
            default: found.append("\(path) must be a number, not \(value.typeName)")
            }
        case .boolean: if value.boolValue == nil { found.append("\(path) must be a boolean, not \(value.typeName)") }
        case .enumeration(let allowed):
            guard case .string(let text) = value, allowed.contains(text) else { return found.append("\(path) is not one of \(allowed)") }
        case .integerEnumeration(let allowed):
            guard case .int(let number) = value, allowed.contains(number) else { return found.append("\(path) is not one of \(allowed)") }
        case .array(let item, let minItems, let maxItems):
            guard case .array(let items) = value else { return found.append("\(path) must be an array, not \(value.typeName)") }
            if let minItems, items.count < minItems { found.append("\(path) has fewer than \(minItems) items") }
            if let maxItems, items.count > maxItems { found.append("\(path) has more than \(maxItems) items") }
            for (index, element) in items.enumerated() { item.check(element, at: "\(path)[\(index)]", into: &found) }
        case .freeObject:
            if value.objectValue == nil { found.append("\(path) must be an object, not \(value.typeName)") }
        case .object(let fields, let additional):
            guard case .object(let object) = value else { return found.append("\(path) must be an object, not \(value.typeName)") }
            for field in fields {
                if let member = object[field.name] {
                    field.schema.check(member, at: "\(path).\(field.name)", into: &found)
                } else if field.required {
                    found.append("\(path).\(field.name) is missing")
                }
            }
            _ = additional
            for key in object.keys where !fields.contains(where: { $0.name == key }) {
                found.append("\(path).\(key) is not in the schema")
            }
        case .nullable(let inner):
            if !value.isNull { inner.check(value, at: path, into: &found) }
        case .oneOf(let options):
            if !options.contains(where: { $0.mismatches(value, at: path).isEmpty }) { found.append("\(path) matches no allowed form") }
        case .named, .described, .defaulted:
            return
        }
    }
}
