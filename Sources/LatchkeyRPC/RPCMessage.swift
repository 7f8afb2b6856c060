import LatchkeyJSON

/// A request id: a string, a number, or null.
///
/// A notification has none at all.
public enum RequestID: Sendable, Equatable {
    case string(String)
    case int(Int64)
    case double(Double)
    case null

    init?(_ json: JSON) {
        switch json {
        case .string(let s): self = .string(s)
        case .int(let i): self = .int(i)
        case .double(let d): self = .double(d)
        case .null: self = .null
        default: return nil
        }
    }

    public var json: JSON {
        switch self {
        case .string(let s): return .string(s)
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .null: return .null
        }
    }
}

/// A call from the peer: a request (with an id) or a notification (without).
public struct RPCRequest: Sendable {
    public var id: RequestID?
    public var method: String
    /// The params as sent: an object, an array, or nil when absent.
    public var params: JSON?

    public init(id: RequestID?, method: String, params: JSON?) {
        self.id = id
        self.method = method
        self.params = params
    }

    /// Reads a Request object, or says why it is not one (with the id to answer, when readable).
    static func decode(_ json: JSON) -> Result<RPCRequest, RejectedRequest> {
        guard case .object(let object) = json else {
            return .failure(RejectedRequest(error: .invalidRequest("a request must be a JSON object"), id: .null))
        }
        var id: RequestID?
        if let rawID = object["id"] {
            guard let valid = RequestID(rawID) else {
                return .failure(RejectedRequest(error: .invalidRequest("id must be a string, a number or null"), id: .null))
            }
            id = valid
        }
        let answerID = id ?? .null
        guard object["jsonrpc"] == .string("2.0") else {
            return .failure(RejectedRequest(error: .invalidRequest("jsonrpc must be the string \"2.0\""), id: answerID))
        }
        guard case .string(let method)? = object["method"] else {
            return .failure(RejectedRequest(error: .invalidRequest("method must be a string"), id: answerID))
        }
        let params = object["params"]
        switch params {
        case nil, .object?, .array?: break
        default: return .failure(RejectedRequest(error: .invalidRequest("params must be an object or an array"), id: answerID))
        }
        return .success(RPCRequest(id: id, method: method, params: params))
    }
}

/// Builds response and notification objects with the member order the protocol tests expect.
public enum RPCMessage {
    public static func result(_ result: JSON, id: RequestID) -> JSON {
        .object(JSONObject([("jsonrpc", "2.0"), ("id", id.json), ("result", result)]))
    }

    public static func error(_ error: RPCError, id: RequestID) -> JSON {
        .object(JSONObject([("jsonrpc", "2.0"), ("id", id.json), ("error", error.json)]))
    }

    public static func notification(_ method: String, params: JSON) -> JSON {
        .object(JSONObject([("jsonrpc", "2.0"), ("method", .string(method)), ("params", params)]))
    }
}

/// A message that is not a valid Request object, with the id to answer it under.
struct RejectedRequest: Error {
    var error: RPCError
    var id: RequestID
}
