import Foundation
import LatchkeyJSON
import LatchkeyRPC
import Testing

@testable import LatchkeyServer

/// The MCP tool list is the method registry: a tool for every method but `rpc.discover`, with
/// self-contained schemas the official SDKs accept, and the committed copy never drifts.
@Suite struct MCPToolListTests {
    private var tools: [JSON] { MCPToolList(everyMethod).document["tools"]?.arrayValue ?? [] }

    @Test func everyMethodButDiscoverIsATool() {
        let names = tools.compactMap { $0["name"]?.stringValue }
        let expected = everyMethod.entries.map(\.name).filter { $0 != "rpc.discover" }
            .map { $0.replacingOccurrences(of: "/", with: "_") }
        #expect(names == expected, "a method has no tool, or a tool no method")
        #expect(Set(names).count == names.count, "two methods map to one tool name")
        // MCP 2025-11-25 allows 1-128 of [A-Za-z0-9_.-]; hosts that hand tools to a model often
        // allow only [A-Za-z0-9_-]{1,64}: keep to the narrower set.
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
        for name in names {
            #expect((1...64).contains(name.count) && name.allSatisfy(allowed.contains), "tool name \(name) is not portable")
        }
        for method in everyMethod.entries where method.name != "rpc.discover" {
            #expect(MCPToolList(everyMethod).method(forTool: MCPToolList.toolName(method.name))?.name == method.name)
        }
        #expect(MCPToolList(everyMethod).method(forTool: "rpc.discover") == nil)
    }

    /// A tool's description is what an agent reads to pick it: more than the one-line summary.
    @Test func everyMethodHasARealDescription() {
        let missing = everyMethod.entries.filter { $0.description.isEmpty || $0.description == $0.summary }.map(\.name)
        #expect(missing.isEmpty, "add a description: to these declarations: \(missing.joined(separator: ", "))")
    }

    @Test func everyToolHasADescriptionAndObjectSchemas() {
        for tool in tools {
            let name = tool["name"]?.stringValue ?? "?"
            #expect(tool["description"]?.stringValue?.isEmpty == false, "\(name) has no description")
            for key in ["inputSchema", "outputSchema"] {
                guard let schema = tool[key] else {
                    Issue.record("\(name) has no \(key)")
                    continue
                }
                #expect(schema["type"] == .string("object"), "\(name).\(key) has no root type object")
                #expect(!Self.keys(in: schema).contains("$ref"), "\(name).\(key) refers outside itself")
                #expect(!Self.keys(in: schema).contains("$schema"), "\(name).\(key) names a $schema")
            }
            #expect(tool["inputSchema"]?["properties"]?.objectValue != nil)
            #expect(tool["inputSchema"]?["required"]?.arrayValue != nil)
        }
    }

    /// schema/mcp-tools.json is the committed copy of what the code generates: it must not drift.
    @Test func committedToolListMatchesTheCode() throws {
        let committed = try Data(contentsOf: SchemaTests.root.appendingPathComponent("schema/mcp-tools.json"))
        let matches = try JSONParser.parse(Array(committed)) == MCPToolList(everyMethod).document
        #expect(matches, "schema/mcp-tools.json drifted from the registry: run `make regen` and review the diff")
    }

    /// Every member name anywhere in a value.
    private static func keys(in value: JSON) -> Set<String> {
        switch value {
        case .object(let object):
            return object.entries.reduce(into: Set(object.keys)) { $0.formUnion(keys(in: $1.value)) }
        case .array(let items):
            return items.reduce(into: Set<String>()) { $0.formUnion(keys(in: $1)) }
        default:
            return []
        }
    }
}
