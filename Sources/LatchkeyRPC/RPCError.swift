import LatchkeyJSON

/// The errors of JSON-RPC 2.0 itself and of the transport, with their codes: the one place
/// these codes are written.
public enum TransportError: Int, Sendable, CaseIterable {
    case parseError = -32700
    case invalidRequest = -32600
    case methodNotFound = -32601
    case invalidParams = -32602
    case internalError = -32603
    case messageTooLarge = -32000

    /// The `reason` name in `data`.
    public var reason: String {
        switch self {
        case .parseError: return "parseError"
        case .invalidRequest: return "invalidRequest"
        case .methodNotFound: return "methodNotFound"
        case .invalidParams: return "invalidParams"
        case .internalError: return "internalError"
        case .messageTooLarge: return "messageTooLarge"
        }
    }

    /// The code with its name.
    public var code: ErrorCode { ErrorCode(rawValue, reason: reason) }

    /// What the error means, for the error registry.
    public var summary: String {
        switch self {
        case .parseError: return "Not JSON, invalid UTF-8, duplicate keys, or nested deeper than 64; data.line and data.column say where."
        case .invalidRequest: return "Not a Request object, or an empty batch."
        case .methodNotFound: return "No such method."
        case .invalidParams:
            return "The params do not fit the method; data.errors is [{path, message}] (the first 100; data.unlisted counts the rest)."
        case .internalError: return "A bug; the process keeps serving."
        case .messageTooLarge:
            return "The message exceeds --max-message-bytes and was skipped, or a batch's responses passed 64 MiB and its later requests "
                + "were not carried out; data.limit."
        }
    }
}

/// An error's code on the wire with the name the contract gives it (`data.reason`), as
/// sourcekit-lsp's `ErrorCode` wraps an `Int`: the transport's codes are the static members
/// here, the domain's come from the server's error table.
public struct ErrorCode: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int
    /// The `reason` name in `data`.
    public let reason: String

    public init(_ rawValue: Int, reason: String) {
        self.rawValue = rawValue
        self.reason = reason
    }

    public var description: String { "\(rawValue) \(reason)" }

    public static let parseError = TransportError.parseError.code
    public static let invalidRequest = TransportError.invalidRequest.code
    public static let methodNotFound = TransportError.methodNotFound.code
    public static let invalidParams = TransportError.invalidParams.code
    public static let internalError = TransportError.internalError.code
    public static let messageTooLarge = TransportError.messageTooLarge.code
}

/// One problem with the params: a dotted path (`authParameter.pin`), what is wrong there, and
/// any data that helps the caller mend it (never the offending value: it may be a secret).
public struct ParamProblem: Sendable, Equatable {
    public var path: String
    public var message: String
    public var extra: JSONObject

    public init(_ path: String, _ message: String, extra: JSONObject = JSONObject()) {
        self.path = path
        self.message = message
        self.extra = extra
    }
}

/// A JSON-RPC error object: a stable numeric code, a human message, and data carrying `reason`.
public struct RPCError: Error, Sendable, Equatable {
    public var code: ErrorCode
    public var message: String
    /// Written with `reason` first, then the error's own members.
    public var data: JSONObject

    public init(code: ErrorCode, message: String, data: JSONObject = JSONObject()) {
        self.code = code
        self.message = message
        var full = JSONObject()
        full.appendUnchecked("reason", .string(code.reason))
        for entry in data.entries where entry.key != "reason" { full.appendUnchecked(entry.key, entry.value) }
        self.data = full
    }

    init(_ error: TransportError, message: String, data: JSONObject = JSONObject()) {
        self.init(code: error.code, message: message, data: data)
    }

    /// The `reason` name in `data`.
    public var reason: String { code.reason }

    public var json: JSON {
        .object(JSONObject([("code", .int(Int64(code.rawValue))), ("message", .string(message)), ("data", .object(data))]))
    }
}

extension RPCError {
    public static func parseError(_ error: JSONParseError) -> RPCError {
        RPCError(
            .parseError, message: error.message,
            data: JSONObject([("line", .int(Int64(error.line))), ("column", .int(Int64(error.column)))]))
    }

    public static func invalidRequest(_ message: String) -> RPCError {
        RPCError(.invalidRequest, message: "Invalid request: \(message)")
    }

    /// Error messages never quote the input, not even the method name.
    public static let methodNotFound = RPCError(.methodNotFound, message: "Method not found")

    /// `data.errors` lists the problems, the first `listedProblems` of them (`data.unlisted` counts the others: a request of many
    /// bad items is not answered by an error many times its size); the message names the first.
    public static func invalidParams(_ problems: [ParamProblem]) -> RPCError {
        let list = JSON.array(
            problems.prefix(listedProblems).map { problem in
                var item = JSONObject([("path", .string(problem.path)), ("message", .string(problem.message))])
                for entry in problem.extra.entries { item[entry.key] = entry.value }
                return .object(item)
            })
        let first = problems.first.map { ": \($0.path.isEmpty ? "params" : $0.path) \($0.message)" } ?? ""
        var data = JSONObject([("errors", list)])
        if problems.count > listedProblems { data.appendUnchecked("unlisted", .int(Int64(problems.count - listedProblems))) }
        return RPCError(.invalidParams, message: "Invalid params\(first)", data: data)
    }

    /// The most problems `data.errors` of an invalidParams answer lists.
    public static let listedProblems = 100

    public static let internalError = RPCError(.internalError, message: "Internal error; the request was not carried out")

    /// A request of a batch whose earlier responses already passed `limit` bytes: it was not carried out.
    public static func batchResponseTooLarge(limit: Int) -> RPCError {
        RPCError(
            .messageTooLarge, message: "The batch's responses passed the limit of \(limit) bytes; this request was not carried out",
            data: JSONObject([("limit", .int(Int64(limit)))]))
    }

    public static func messageTooLarge(limit: Int) -> RPCError {
        RPCError(
            .messageTooLarge, message: "The message is larger than the limit of \(limit) bytes and was skipped",
            data: JSONObject([("limit", .int(Int64(limit)))]))
    }
}
