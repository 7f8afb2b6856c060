import LatchkeyContract
import LatchkeyCore
import LatchkeyJSON
import LatchkeyRPC
import LatchkeyWire

/// Builds the OpenRPC 1.3 document from a method table and the error codes.
enum OpenRPCDocument {
    static func build(version: String, methods table: MethodTable) -> JSON {
        var writer = SchemaWriter(.referenced)
        let methods = table.entries.map { method(for: $0, &writer) }
        let notifications = Notifications.specs.map { spec -> JSON in
            ["method": .string(spec.method), "topic": .string(spec.topic.rawValue), "params": writer.json(spec.params)]
        }
        var schemas = JSONObject()
        for (name, schema) in writer.named.sorted(by: { $0.name < $1.name }) { schemas.appendUnchecked(name, schema) }
        return [
            "openrpc": "1.3.2",
            "info": [
                "title": "Latchkey",
                "version": .string(version),
                "description": .string(
                    "Activation, authentication and account recovery flows of mobile authenticator SDKs, device and server halves, over "
                        + "JSON-RPC 2.0 on stdio."),
            ],
            "methods": .array(methods),
            "components": ["schemas": .object(schemas), "errors": errorComponents],
            "x-notifications": .array(notifications),
            "x-auditEventTypes": .strings(AuditEventType.allCases.map(\.rawValue)),
        ]
    }

    /// One method object: name, descriptions, params by name, result, and every error it may answer.
    private static func method(for entry: MethodEntry, _ writer: inout SchemaWriter) -> JSON {
        var object = JSONObject([("name", .string(entry.name)), ("summary", .string(entry.summary))])
        object["description"] = .string(entry.description)
        object["params"] = .array(
            entry.params().map { field in
                var param = JSONObject([("name", .string(field.name)), ("required", .bool(field.required))])
                if !field.summary.isEmpty { param["description"] = .string(field.summary) }
                param["schema"] = writer.json(field.schema)
                return .object(param)
            })
        object["paramStructure"] = "by-name"
        object["result"] = ["name": .string("\(entry.name) result"), "schema": writer.json(entry.result())]
        object["errors"] = .array(errorReferences(entry))
        if entry.access.adminOnly { object["x-adminOnly"] = true }
        return .object(object)
    }

    /// The errors a method declares, then the ones every method may answer.
    static func errorReferences(_ entry: MethodEntry) -> [JSON] {
        var rows = entry.declaredReasons.filter { $0 != .invalidParams }.map { (ErrorCodes.code($0).rawValue, $0.rawValue) }
        rows += [
            (TransportError.invalidParams.rawValue, TransportError.invalidParams.reason),
            (TransportError.internalError.rawValue, TransportError.internalError.reason),
        ]
        return rows.map { code, reason in ["code": .int(code), "message": .string(reason), "data": ["reason": .string(reason)]] }
    }

    /// `components.errors`: every reason with its code and meaning.
    private static var errorComponents: JSON {
        var errors = JSONObject()
        for row in ErrorCodes.registry {
            errors.appendUnchecked(
                row.reason,
                [
                    "code": .int(row.code), "message": .string(row.reason),
                    "data": ["reason": .string(row.reason), "description": .string(row.summary)],
                ])
        }
        return .object(errors)
    }
}
