import LatchkeyJSON
import LatchkeyWire

/// The Model Context Protocol tools: one for every method of a table except `rpc.discover`, named as the method with `/` written as `_`, its
/// schemas self-contained (every named schema spelled out where it is used, no `$schema`, a root `"type": "object"`).
///
/// Nothing here is listed by hand: a method added to the table is a tool.
public struct MCPToolList {
    /// The methods that are not tools (the OpenRPC document is not something to call as a tool).
    static let excluded: Set<String> = ["rpc.discover"]

    /// The tool name of a method (`activation/start` → `activation_start`).
    static func toolName(_ method: String) -> String {
        String(method.map { $0 == "/" ? "_" : $0 })
    }

    /// The methods that are tools, in the table's order.
    let methods: [MethodEntry]
    /// Tool name → method.
    private let byToolName: [String: MethodEntry]

    public init(_ table: MethodTable) {
        methods = table.entries.filter { !Self.excluded.contains($0.name) }
        byToolName = Dictionary(methods.map { (Self.toolName($0.name), $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The method a tool call names, or nil for an unknown tool.
    func method(forTool name: String) -> MethodEntry? { byToolName[name] }

    /// The tool list as `latchkey schema --mcp-tools` prints it and `tools/list` answers it: `{"tools": […]}`.
    public var document: JSON { ["tools": .array(methods.map(Self.tool))] }

    /// One tool: name, description, input and output schemas.
    static func tool(for entry: MethodEntry) -> JSON {
        var writer = SchemaWriter(.inline)
        return [
            "name": .string(toolName(entry.name)),
            "description": .string(entry.description),
            "inputSchema": inputSchema(entry, &writer),
            "outputSchema": writer.json(entry.result()),
        ]
    }

    /// `{"type": "object", "properties": {<param>: <its schema>, …}, "required": [<required params>]}`.
    private static func inputSchema(_ entry: MethodEntry, _ writer: inout SchemaWriter) -> JSON {
        let fields = entry.params()
        var properties = JSONObject()
        for field in fields {
            var property = writer.json(field.schema)
            if !field.summary.isEmpty, case .object(var object) = property {
                object["description"] = .string(field.summary)
                property = .object(object)
            }
            properties.appendUnchecked(field.name, property)
        }
        return [
            "type": "object",
            "properties": .object(properties),
            "required": .strings(fields.filter(\.required).map(\.name)),
        ]
    }
}
