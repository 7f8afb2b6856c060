import LatchkeyJSON

/// A request id: a string, a number, or null.
///
/// A notification has none at all. Kept as the JSON value it is written as.
public struct RequestID: Sendable, Equatable {
    /// The id as it is written back.
    public let json: JSON

    /// An id known to be a string, a number or null.
    init(unchecked json: JSON) {
        self.json = json
    }

    /// The id `json` is, or nil when it cannot be one (not a string, a number or null).
    init?(_ json: JSON) {
        guard Self.canBe(json) else { return nil }
        self.json = json
    }

    /// Whether `json` can be an id: a string, a number or null.
    static func canBe(_ json: JSON) -> Bool {
        switch json {
        case .string, .int, .double, .null: return true
        default: return false
        }
    }

    public static func string(_ value: String) -> RequestID { RequestID(unchecked: .string(value)) }
    public static func int(_ value: Int64) -> RequestID { RequestID(unchecked: .int(value)) }
    public static func double(_ value: Double) -> RequestID { RequestID(unchecked: .double(value)) }
    public static let null = RequestID(unchecked: .null)
}

/// A call from the peer: a request (with an id) or a notification (without).
public struct RPCRequest: Sendable {
    /// The id; nil for a notification.
    public var id: RequestID? {
        get { idValue.map(RequestID.init(unchecked:)) }
        set { idValue = newValue?.json }
    }
    /// The id as the JSON value it is written back as (kept so, an optional `RequestID` costs
    /// more to copy and destroy on every call).
    var idValue: JSON?
    public var method: String
    /// The params as sent: an object, an array, or nil when absent.
    public var params: JSON?

    public init(id: RequestID?, method: String, params: JSON?) {
        self.idValue = id?.json
        self.method = method
        self.params = params
    }

    /// Reads a Request object.
    /// - Throws: why it is not one, with the id to answer under (when readable).
    static func decode(_ json: JSON) throws(RejectedRequest) -> RPCRequest {
        guard case .object(let object) = json else {
            throw RejectedRequest(error: .invalidRequest("a request must be a JSON object"), id: .null)
        }
        // One pass over the members (keys are unique: the parser rejects duplicates).
        var id: JSON?
        var version: JSON?
        var method: JSON?
        var params: JSON?
        for entry in object.entries {
            switch entry.key {
            case "jsonrpc": version = entry.value
            case "id": id = entry.value
            case "method": method = entry.value
            case "params": params = entry.value
            default: break
            }
        }
        return try decode(id: id, version: version, method: method, params: params)
    }

    /// Reads a Request object from a parsed document that is an object, converting only the
    /// members a request has.
    /// - Throws: as `decode(_:)` does.
    static func decode(_ document: borrowing JSONDocument) throws(RejectedRequest) -> RPCRequest {
        try decode(
            id: document.member("id"), version: document.member("jsonrpc"), method: document.member("method"),
            params: document.member("params"))
    }

    @inline(never)
    private static func invalidID() -> RejectedRequest {
        RejectedRequest(error: .invalidRequest("id must be a string, a number or null"), id: .null)
    }

    /// Checks the members of a Request object (absent ones nil).
    private static func decode(id: JSON?, version: JSON?, method rawMethod: JSON?, params: JSON?) throws(RejectedRequest) -> RPCRequest {
        if let id, !RequestID.canBe(id) { throw invalidID() }
        /// The refusal of a request whose id was read.
        @inline(never)
        func refusal(_ problem: String) -> RejectedRequest {
            RejectedRequest(error: .invalidRequest(problem), id: RequestID(unchecked: id ?? .null))
        }
        guard case .string("2.0")? = version else { throw refusal("jsonrpc must be the string \"2.0\"") }
        guard case .string(let method)? = rawMethod else { throw refusal("method must be a string") }
        switch params {
        case nil, .object?, .array?: break
        default: throw refusal("params must be an object or an array")
        }
        var request = RPCRequest(id: nil, method: method, params: params)
        request.idValue = id
        return request
    }
}

/// Builds response and notification objects with the member order the protocol tests expect.
public enum RPCMessage {
    public static func result(_ result: JSON, id: RequestID) -> JSON {
        envelope("id", id.json, "result", result)
    }

    public static func error(_ error: RPCError, id: RequestID) -> JSON {
        envelope("id", id.json, "error", error.json)
    }

    public static func notification(_ method: String, params: JSON) -> JSON {
        envelope("method", .string(method), "params", params)
    }

    /// The response to a call with this outcome: `result(_:id:)` or `error(_:id:)`.
    public static func response(_ outcome: Result<JSON, RPCError>, id: RequestID) -> JSON {
        switch outcome {
        case .success(let value): return result(value, id: id)
        case .failure(let failure): return error(failure, id: id)
        }
    }

    /// Serializes the response `response(_:id:)` builds, without building it.
    public static func writeResponse(_ outcome: Result<JSON, RPCError>, id: RequestID, into output: inout [UInt8]) {
        writeResponse(outcome, id: id.json, into: &output)
    }

    /// `writeResponse(_:id:into:)` for an id already known valid, as its JSON value.
    static func writeResponse(_ outcome: Result<JSON, RPCError>, id: JSON, into output: inout [UInt8]) {
        JSONSerializer.serializeObject(into: &output) { object in
            object.append("jsonrpc", "2.0")
            object.append("id", id)
            switch outcome {
            case .success(let value): object.append("result", value)
            case .failure(let failure): object.append("error", failure.json)
            }
        }
    }

    /// `{"jsonrpc":"2.0", first, second}`: the keys are distinct, so no member is looked up.
    private static func envelope(_ firstKey: String, _ first: JSON, _ secondKey: String, _ second: JSON) -> JSON {
        .object(
            JSONObject(uniqueEntries: [
                .init(key: "jsonrpc", value: "2.0"), .init(key: firstKey, value: first), .init(key: secondKey, value: second),
            ]))
    }
}

/// A message that is not a valid Request object, with the id to answer it under.
struct RejectedRequest: Error {
    var error: RPCError
    var id: RequestID
}
