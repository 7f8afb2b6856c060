import LatchkeyJSON
import LatchkeyRPC

/// The Model Context Protocol method table (`latchkey mcp`): the handshake, `ping`, the tools (every Latchkey method, called through the same server
/// as plain JSON-RPC) and logging.
///
/// A thin layer over `LatchkeyServer` on the same engine: MCP's messages are JSON-RPC 2.0.
public final class MCPSession: RPCHandler {
    /// The protocol revisions served; a client asking for another gets the newest.
    static let supportedVersions = ["2025-11-25", "2025-06-18"]

    private let server: LatchkeyServer
    /// The least severe level the client wants (`logging/setLevel`; `info` until set).
    private var minimumLevel = MCPLogLevel.info
    /// The server's methods as tools (made on the first `tools/…` call).
    private lazy var tools = MCPToolList(server.options.methods)
    /// The `tools/list` result (built once, on first use).
    private lazy var listResult = tools.document

    public init(server: LatchkeyServer) {
        self.server = server
    }

    public func handle(_ request: RPCRequest, emit: (JSON) -> Void) -> Result<JSON, RPCError> {
        switch request.method {
        case "initialize": return initialize(request.params)
        case "ping": return .success(.object(JSONObject()))
        case "tools/list": return listTools(request.params)
        case "tools/call": return callTool(request, emit: emit)
        case "logging/setLevel": return setLevel(request.params)
        // Notifications from the client (`notifications/initialized`, `…/cancelled`, …) need
        // nothing; the stateless revision's `server/discover` is not served (the client falls
        // back to the handshake at once), like any other method not listed here.
        default: return .failure(.methodNotFound)
        }
    }

    public func millisecondsUntilDue() -> Int? { server.millisecondsUntilDue() }

    public var waker: LoopWaker? { server.waker }

    public func runDue(emit: (JSON) -> Void) {
        server.runDue { forward($0, emit) }
    }

    // MARK: lifecycle

    /// The client's `protocolVersion` when served, else the newest; the server's name, version and capabilities.
    ///
    /// A version left out is "else" too (PROTOCOL: "else `2025-11-25`"). Params that are not an object, or a version that is
    /// not a string, are malformed: `invalidParams`.
    private func initialize(_ params: JSON?) -> Result<JSON, RPCError> {
        let object: JSONObject
        switch params {
        case nil: object = JSONObject()
        case .object(let given)?: object = given
        default: return .failure(.invalidParams([ParamProblem("", "must be an object")]))
        }
        let asked: String?
        switch object["protocolVersion"] {
        case nil: asked = nil
        case .string(let given)?: asked = given
        default: return .failure(.invalidParams([ParamProblem("protocolVersion", "must be a string")]))
        }
        let version = asked.flatMap { Self.supportedVersions.contains($0) ? $0 : nil } ?? Self.supportedVersions[0]
        return .success([
            "protocolVersion": .string(version),
            "capabilities": ["tools": .object(JSONObject()), "logging": .object(JSONObject())],
            "serverInfo": ["name": "latchkey", "version": .string(server.options.version)],
        ])
    }

    // MARK: tools

    private func listTools(_ params: JSON?) -> Result<JSON, RPCError> {
        // One page holds every tool: a cursor is never handed out, so none is valid.
        if case .string? = params?["cursor"] {
            return .failure(.invalidParams([ParamProblem("cursor", "is not a cursor this server gave")]))
        }
        return .success(listResult)
    }

    /// Calls the method a tool names; its answer as `structuredContent` and one text block,
    /// or a Latchkey error as `isError` with the error object as text.
    private func callTool(_ request: RPCRequest, emit: (JSON) -> Void) -> Result<JSON, RPCError> {
        guard case .object(let params)? = request.params else {
            return .failure(.invalidParams([ParamProblem("", "must be an object")]))
        }
        let name: String
        switch params["name"] {
        case nil: return .failure(.invalidParams([ParamProblem("name", "is required: the tool to call (tools/list names them)")]))
        case .string(let given)?: name = given
        case let other?: return .failure(.invalidParams([ParamProblem("name", "must be a string, not \(other.typeName)")]))
        }
        guard let method = tools.method(forTool: name) else {
            return .failure(.invalidParams([ParamProblem("name", "is not a tool of this server")]))
        }
        let arguments: JSONObject
        switch params["arguments"] {
        case nil: arguments = JSONObject()
        case .object(let given)?: arguments = given
        default: return .failure(.invalidParams([ParamProblem("arguments", "must be an object")]))
        }
        let call = RPCRequest(id: request.id, method: method.name, params: .object(arguments))
        switch server.handle(call, emit: { forward($0, emit) }) {
        case .success(let result):
            return .success(["content": [Self.text(result)], "structuredContent": result])
        case .failure(let error):
            return .success(["content": [Self.text(error.json)], "isError": true])
        }
    }

    private static func text(_ value: JSON) -> JSON {
        ["type": "text", "text": .string(String(decoding: JSONSerializer.serialize(value), as: UTF8.self))]
    }

    // MARK: logging

    private func setLevel(_ params: JSON?) -> Result<JSON, RPCError> {
        guard case .string(let name)? = params?["level"], let level = MCPLogLevel(rawValue: name) else {
            let levels = MCPLogLevel.allCases.map(\.rawValue).joined(separator: ", ")
            return .failure(.invalidParams([ParamProblem("level", "must be one of \(levels)")]))
        }
        minimumLevel = level
        return .success(.object(JSONObject()))
    }

    /// A notification of a subscribed topic, as a log message at `info` when the client's
    /// level lets it through.
    private func forward(_ notification: JSON, _ emit: (JSON) -> Void) {
        guard minimumLevel <= .info, let message = MCPLogMessage.message(for: notification) else { return }
        emit(message)
    }
}
