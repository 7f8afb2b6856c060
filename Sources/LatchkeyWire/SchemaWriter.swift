import LatchkeyContract
import LatchkeyJSON

/// Writes `Schema` descriptions as JSON Schema.
///
/// Named schemas are written once under their name and referenced (`$ref: #/components/schemas/Name`)
/// where they are used, or spelled out in place for a self-contained schema (MCP tools), as the writer
/// is told.
public struct SchemaWriter {
    public enum NamedSchemas {
        /// `{"$ref": "#/components/schemas/Name"}`, the definition collected in `named`.
        case referenced
        /// The definition written where it is used.
        case inline
    }

    public let mode: NamedSchemas
    /// The named schemas met so far, in the order met.
    public private(set) var named: [(name: String, schema: JSON)] = []
    private var seen: Set<String> = []

    public init(_ mode: NamedSchemas) { self.mode = mode }

    public mutating func json(_ schema: Schema) -> JSON {
        switch schema {
        case .any: return .object(JSONObject())
        case .null: return ["type": "null"]
        case .string(let minLength, let maxLength, let format):
            var object = JSONObject([("type", "string")])
            if let minLength { object["minLength"] = .int(minLength) }
            if let maxLength { object["maxLength"] = .int(maxLength) }
            if let format { object["format"] = .string(format) }
            return .object(object)
        case .integer(let minimum, let maximum):
            var object = JSONObject([("type", "integer")])
            if let minimum { object["minimum"] = .int(minimum) }
            if let maximum { object["maximum"] = .int(maximum) }
            return .object(object)
        case .number: return ["type": "number"]
        case .boolean: return ["type": "boolean"]
        case .enumeration(let values): return ["type": "string", "enum": .strings(values)]
        case .integerEnumeration(let values): return ["type": "integer", "enum": .array(values.map(JSON.int))]
        case .array(let item, let minItems, let maxItems):
            var object = JSONObject([("type", "array"), ("items", json(item))])
            if let minItems { object["minItems"] = .int(minItems) }
            if let maxItems { object["maxItems"] = .int(maxItems) }
            return .object(object)
        case .freeObject: return ["type": "object"]
        case .object(let fields, let additional):
            return object(fields, additional: additional)
        case .nullable(let inner):
            return ["oneOf": [json(inner), ["type": "null"]]]
        case .named(let name, let inner):
            guard mode == .referenced else { return json(inner) }
            if seen.insert(name).inserted {
                let definition = json(inner)
                named.append((name, definition))
            }
            return ["$ref": .string("#/components/schemas/\(name)")]
        case .oneOf(let options):
            return ["oneOf": .array(options.map { json($0) })]
        case .described(let text, let inner):
            return annotated(json(inner), "description", .string(text))
        case .defaulted(let value, let inner):
            return annotated(json(inner), "default", value)
        }
    }

    /// An object schema: its properties (each with its description), required members, and
    /// whether other members are allowed.
    public mutating func object(_ fields: [Field], additional: Bool = true) -> JSON {
        var properties = JSONObject()
        for field in fields {
            var property = json(field.schema)
            if !field.summary.isEmpty { property = annotated(property, "description", .string(field.summary)) }
            properties.appendUnchecked(field.name, property)
        }
        var object = JSONObject([("type", "object"), ("properties", .object(properties))])
        let required = fields.filter(\.required).map(\.name)
        if !required.isEmpty { object["required"] = .strings(required) }
        if !additional { object["additionalProperties"] = false }
        return .object(object)
    }

    /// Adds a keyword to a schema object (a `$ref` stays bare: its siblings would be ignored).
    private func annotated(_ schema: JSON, _ key: String, _ value: JSON) -> JSON {
        guard case .object(var object) = schema, object["$ref"] == nil else { return schema }
        object[key] = value
        return .object(object)
    }
}
