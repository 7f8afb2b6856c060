import LatchkeyCore
import LatchkeyJSON

/// Builds the OpenRPC 1.3 document from the method registry and the error registry.
enum OpenRPCDocument {
    static func build(methods: [MethodSpec], version: String) -> JSON {
        var named: [(String, JSON)] = []
        var namedSeen: Set<String> = []

        func schemaJSON(_ schema: Schema) -> JSON {
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
            case .array(let item, let minItems):
                var object = JSONObject([("type", "array"), ("items", schemaJSON(item))])
                if let minItems { object["minItems"] = .int(minItems) }
                return .object(object)
            case .freeObject: return ["type": "object"]
            case .object(let fields, let additional):
                var properties = JSONObject()
                for field in fields {
                    var property = schemaJSON(field.schema)
                    if !field.summary.isEmpty, case .object(var object) = property, object["$ref"] == nil {
                        object["description"] = .string(field.summary)
                        property = .object(object)
                    }
                    properties.appendUnchecked(field.name, property)
                }
                var object = JSONObject([("type", "object"), ("properties", .object(properties))])
                let required = fields.filter(\.required).map(\.name)
                if !required.isEmpty { object["required"] = .strings(required) }
                if !additional { object["additionalProperties"] = false }
                return .object(object)
            case .nullable(let inner):
                return ["oneOf": [schemaJSON(inner), ["type": "null"]]]
            case .named(let name, let inner):
                if !namedSeen.contains(name) {
                    namedSeen.insert(name)
                    named.append((name, schemaJSON(inner)))
                }
                return ["$ref": .string("#/components/schemas/\(name)")]
            case .oneOf(let options):
                return ["oneOf": .array(options.map(schemaJSON))]
            }
        }

        let generic = ["invalidParams", "internalError"]
        let methodList: [JSON] = methods.map { method in
            var object = JSONObject([("name", .string(method.name)), ("summary", .string(method.summary))])
            object["params"] = .array(method.params.map { field in
                var param = JSONObject([("name", .string(field.name)), ("required", .bool(field.required))])
                if !field.summary.isEmpty { param["description"] = .string(field.summary) }
                param["schema"] = schemaJSON(field.schema)
                return .object(param)
            })
            object["paramStructure"] = "by-name"
            object["result"] = ["name": .string("\(method.name) result"), "schema": schemaJSON(method.result)]
            var reasons = method.errors
            if method.adminOnly || method.name == "clock/advance" { reasons.append("forbidden") }
            for reason in generic where !reasons.contains(reason) { reasons.append(reason) }
            var seen: Set<String> = []
            object["errors"] = .array(reasons.filter { seen.insert($0).inserted }.compactMap { reason in
                guard let entry = ErrorRegistry.entries.first(where: { $0.reason == reason }) else { return nil }
                return ["code": .int(entry.code), "message": .string(entry.reason), "data": ["reason": .string(entry.reason)]]
            })
            if method.adminOnly { object["x-adminOnly"] = true }
            return .object(object)
        }

        var errors = JSONObject()
        for entry in ErrorRegistry.entries {
            errors.appendUnchecked(entry.reason, [
                "code": .int(entry.code), "message": .string(entry.reason),
                "data": ["reason": .string(entry.reason), "description": .string(entry.summary)],
            ])
        }
        var schemas = JSONObject()
        for (name, schema) in named.sorted(by: { $0.0 < $1.0 }) { schemas.appendUnchecked(name, schema) }

        return [
            "openrpc": "1.3.2",
            "info": [
                "title": "Latchkey",
                "version": .string(version),
                "description": "Activation, authentication and account recovery flows of mobile authenticator SDKs, device and server halves, over JSON-RPC 2.0 on stdio.",
            ],
            "methods": .array(methodList),
            "components": ["schemas": .object(schemas), "errors": .object(errors)],
            "x-notifications": .array(Notifications.specs.map { spec in
                ["method": .string(spec.method), "topic": .string(spec.topic.rawValue), "params": schemaJSON(spec.params)]
            }),
            "x-auditEventTypes": .strings(AuditEventType.allCases.map(\.rawValue)),
        ]
    }
}
