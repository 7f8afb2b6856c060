import LatchkeyJSON
import LatchkeyRPC
import Testing

@testable import LatchkeyServer

/// The MCP method table over the server: negotiation, tool results and errors, log messages.
@Suite struct MCPSessionTests {
    private func session() -> MCPSession {
        MCPSession(server: LatchkeyServer(environment: memoryEnvironment(), options: testOptions()))
    }

    private func call(_ session: MCPSession, _ method: String, _ params: JSON?, emitted: inout [JSON]) -> Result<JSON, RPCError> {
        var collected: [JSON] = []
        let outcome = session.handle(RPCRequest(id: .int(1), method: method, params: params)) { collected.append($0) }
        emitted += collected
        return outcome
    }

    @Test func negotiatesAServedVersionOrTheNewest() throws {
        var emitted: [JSON] = []
        let mcp = session()
        for (asked, answered) in [("2025-06-18", "2025-06-18"), ("2025-11-25", "2025-11-25"), ("2024-11-05", "2025-11-25")] {
            let result = try call(mcp, "initialize", ["protocolVersion": .string(asked), "capabilities": [:]], emitted: &emitted).get()
            #expect(result["protocolVersion"] == .string(answered))
            #expect(result["serverInfo"]?["name"] == "latchkey")
            #expect(result["capabilities"]?["tools"] != nil && result["capabilities"]?["logging"] != nil)
        }
        #expect(call(mcp, "server/discover", [:], emitted: &emitted) == .failure(.methodNotFound))
        #expect(try call(mcp, "ping", nil, emitted: &emitted).get() == .object(JSONObject()))
    }

    @Test func toolErrorsAndProtocolErrors() throws {
        var emitted: [JSON] = []
        let mcp = session()
        let bad = try call(mcp, "tools/call", ["name": "activation_start", "arguments": ["deviceId": 3]], emitted: &emitted).get()
        #expect(bad["isError"] == true)
        #expect(bad["structuredContent"] == nil)
        let text = bad["content"]?.arrayValue?.first?["text"]?.stringValue ?? ""
        #expect(try JSONParser.parse(Array(text.utf8))["code"] == .int(-32602))
        #expect(call(mcp, "tools/call", ["name": "rpc.discover"], emitted: &emitted).failureCode == -32602)
        #expect(call(mcp, "tools/call", ["name": "ping", "arguments": [1]], emitted: &emitted).failureCode == -32602)
        #expect(call(mcp, "logging/setLevel", ["level": "loud"], emitted: &emitted).failureCode == -32602)
    }

    @Test func notificationsAreLogMessagesWithoutCodes() throws {
        var emitted: [JSON] = []
        let mcp = session()
        _ = try call(mcp, "tools/call", ["name": "events_subscribe", "arguments": ["topics": ["delivery"]]], emitted: &emitted).get()
        _ = try call(
            mcp, "tools/call", ["name": "admin_createUser", "arguments": ["email": "dan@example.com", "password": "password1"]],
            emitted: &emitted
        ).get()
        _ = try call(
            mcp, "tools/call",
            [
                "name": "reset_requestPasswordReset",
                "arguments": ["email": "dan@example.com", "redirectUrl": "app://r"],
            ], emitted: &emitted
        ).get()
        let sent = emitted.filter { $0["params"]?["logger"] == "delivery/sent" }
        #expect(!sent.isEmpty)
        for message in sent {
            #expect(message["method"] == "notifications/message")
            #expect(message["params"]?["level"] == "info")
            let delivered = message["params"]?["data"]?["message"]
            #expect(delivered != nil && delivered?["code"] == nil && delivered?["text"] == nil && delivered?["link"] == nil)
        }
        emitted.removeAll()
        _ = try call(mcp, "logging/setLevel", ["level": "warning"], emitted: &emitted).get()
        _ = try call(
            mcp, "tools/call",
            [
                "name": "reset_requestPasswordReset",
                "arguments": ["email": "dan@example.com", "redirectUrl": "app://r"],
            ], emitted: &emitted
        ).get()
        #expect(emitted.isEmpty, "a level above info lets no notification through")
    }
}

extension Result where Failure == RPCError {
    fileprivate var failureCode: Int? {
        if case .failure(let error) = self { return error.code.rawValue }
        return nil
    }
}
