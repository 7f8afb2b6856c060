import LatchkeyJSON

/// A JSON-RPC error object: a stable numeric code, a human message, and data carrying `reason`.
public struct RPCError: Error, Sendable, Equatable {
    public var code: Int
    public var message: String
    public var data: JSONObject

    public init(code: Int, reason: String, message: String, data: JSONObject = JSONObject()) {
        self.code = code
        self.message = message
        var full = JSONObject()
        full.appendUnchecked("reason", .string(reason))
        for entry in data.entries where entry.key != "reason" { full.appendUnchecked(entry.key, entry.value) }
        self.data = full
    }

    /// The `reason` name in `data`.
    public var reason: String { data["reason"]?.stringValue ?? "" }

    public var json: JSON {
        .object(JSONObject([("code", .int(Int64(code))), ("message", .string(message)), ("data", .object(data))]))
    }
}

extension RPCError {
    /// The transport-level errors of JSON-RPC 2.0 and the contract.
    public static func parseError(_ error: JSONParseError) -> RPCError {
        RPCError(code: -32700, reason: "parseError", message: error.message,
                 data: JSONObject([("line", .int(Int64(error.line))), ("column", .int(Int64(error.column)))]))
    }

    public static func invalidRequest(_ message: String) -> RPCError {
        RPCError(code: -32600, reason: "invalidRequest", message: "Invalid request: \(message)")
    }

    public static func methodNotFound(_ method: String) -> RPCError {
        // Error messages never quote the input, not even the method name.
        _ = method
        return RPCError(code: -32601, reason: "methodNotFound", message: "Method not found")
    }

    public static func invalidParams(_ errors: [(path: String, message: String)]) -> RPCError {
        let list = JSON.array(errors.map { .object(JSONObject([("path", .string($0.path)), ("message", .string($0.message))])) })
        let first = errors.first.map { ": \($0.path.isEmpty ? "params" : $0.path) \($0.message)" } ?? ""
        return RPCError(code: -32602, reason: "invalidParams", message: "Invalid params\(first)",
                        data: JSONObject([("errors", list)]))
    }

    public static func internalError() -> RPCError {
        RPCError(code: -32603, reason: "internalError", message: "Internal error; the request was not carried out")
    }

    public static func messageTooLarge(limit: Int) -> RPCError {
        RPCError(code: -32000, reason: "messageTooLarge",
                 message: "The message is larger than the limit of \(limit) bytes and was skipped",
                 data: JSONObject([("limit", .int(Int64(limit)))]))
    }
}
