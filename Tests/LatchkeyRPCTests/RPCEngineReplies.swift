import LatchkeyJSON
import LatchkeyRPC
import Testing

/// The parts of an error response a test checks.
struct ErrorReply: Equatable {
    var id: JSON
    var code: Int64
    var reason: String

    init(id: JSON, code: Int64, reason: String) {
        self.id = id
        self.code = code
        self.reason = reason
    }

    init?(_ reply: JSON) {
        guard reply["jsonrpc"] == "2.0", reply["result"] == nil, let id = reply["id"],
            let code = reply["error"]?["code"]?.intValue, let reason = reply["error"]?["data"]?["reason"]?.stringValue,
            reply["error"]?["message"]?.stringValue != nil
        else { return nil }
        self.init(id: id, code: code, reason: reason)
    }
}

func invalidRequest(_ id: JSON = .null) -> ErrorReply { ErrorReply(id: id, code: -32600, reason: "invalidRequest") }
func parseError() -> ErrorReply { ErrorReply(id: .null, code: -32700, reason: "parseError") }
func methodNotFound(_ id: JSON) -> ErrorReply { ErrorReply(id: id, code: -32601, reason: "methodNotFound") }

/// The bodies of `Content-Length: N\r\n\r\n` frames written back to back; records an issue
/// when the bytes are framed any other way.
func contentLengthFrames(_ bytes: [UInt8]) -> [[UInt8]] {
    var bodies: [[UInt8]] = []
    var rest = bytes[...]
    let prefix = utf8("Content-Length: ")
    while !rest.isEmpty {
        guard rest.starts(with: prefix) else {
            Issue.record("a frame does not start with Content-Length")
            return bodies
        }
        rest = rest.dropFirst(prefix.count)
        let digits = rest.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        rest = rest.dropFirst(digits.count)
        guard let length = Int(String(decoding: digits, as: UTF8.self)), rest.starts(with: utf8("\r\n\r\n")),
            rest.count >= 4 + length
        else {
            Issue.record("a malformed frame header")
            return bodies
        }
        rest = rest.dropFirst(4)
        bodies.append(Array(rest.prefix(length)))
        rest = rest.dropFirst(length)
    }
    return bodies
}
