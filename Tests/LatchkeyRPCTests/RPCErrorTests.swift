import LatchkeyRPC
import Testing

@testable import LatchkeyJSON

@Suite("RPCError and RPCMessage")
struct RPCErrorTests {
    @Test(
        "transport errors carry the contract's codes and reasons",
        arguments: [
            (RPCError.invalidRequest("x"), -32600, "invalidRequest"),
            (.methodNotFound, -32601, "methodNotFound"),
            (.invalidParams([ParamProblem("seconds", "must be at least 0")]), -32602, "invalidParams"),
            (.internalError, -32603, "internalError"),
            (.messageTooLarge(limit: 100), -32000, "messageTooLarge"),
            (.parseError(JSONParseError(kind: .duplicateKey, line: 3, column: 9)), -32700, "parseError"),
        ] as [(RPCError, Int, String)])
    func codes(error: RPCError, code: Int, reason: String) {
        #expect(error.code.rawValue == code)
        #expect(error.data["reason"]?.stringValue == reason)
        #expect(error.reason == reason)
        #expect(error.data.keys.first == "reason")
        #expect(!error.message.isEmpty)
        #expect(!error.message.contains("\n"))
    }

    @Test("the error object is code, message, data in that order")
    func errorObjectOrder() {
        let error = RPCError(
            code: ErrorCode(1004, reason: "rateLimited"), message: "Too many attempts",
            data: JSONObject([("retryAfterSeconds", 30), ("reason", "ignored")]))
        #expect(
            JSONSerializer.string(error.json)
                == #"{"code":1004,"message":"Too many attempts","data":{"reason":"rateLimited","retryAfterSeconds":30}}"#)
    }

    @Test("a parse error gives line and column, not the text")
    func parseErrorData() {
        let error = RPCError.parseError(JSONParseError(kind: .invalidSyntax, line: 2, column: 11))
        #expect(error.data["line"] == 2)
        #expect(error.data["column"] == 11)
        #expect(error.data.keys == ["reason", "line", "column"])
    }

    @Test("invalidParams lists every problem with its path")
    func invalidParamsData() {
        let error = RPCError.invalidParams([ParamProblem("topics[0]", "must be one of a, b"), ParamProblem("seconds", "is required")])
        #expect(
            error.data["errors"] == [
                ["path": "topics[0]", "message": "must be one of a, b"], ["path": "seconds", "message": "is required"],
            ])
        #expect(error.message.contains("topics[0]"))
    }

    @Test("messageTooLarge names the limit")
    func tooLargeData() {
        #expect(RPCError.messageTooLarge(limit: 1 << 20).data["limit"] == 1_048_576)
    }

    @Test("responses and notifications are built with jsonrpc first")
    func messageShapes() {
        #expect(
            JSONSerializer.string(RPCMessage.result(["ok": true], id: .string("a")))
                == #"{"jsonrpc":"2.0","id":"a","result":{"ok":true}}"#)
        #expect(JSONSerializer.string(RPCMessage.error(.internalError, id: .null)).hasPrefix(#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"#))
        #expect(
            JSONSerializer.string(RPCMessage.notification("delivery/sent", params: ["message": [:]]))
                == #"{"jsonrpc":"2.0","method":"delivery/sent","params":{"message":{}}}"#)
    }

    @Test("request ids convert back to the JSON they came from")
    func requestIDs() {
        #expect(RequestID.string("x").json == "x")
        #expect(RequestID.int(-3).json == -3)
        #expect(RequestID.double(1.5).json == 1.5)
        #expect(RequestID.null.json == .null)
        #expect(RPCRequest(id: nil, method: "m", params: nil).id == nil)
        #expect(RPCRequest(id: .null, method: "m", params: nil).id != nil)
    }
}
