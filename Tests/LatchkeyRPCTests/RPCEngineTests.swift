import LatchkeyJSON
import LatchkeyRPC
import Testing

@Suite("RPCEngine: single messages")
struct RPCEngineSingleTests {
    @Test("a request is answered with its id and the handler's result, members in order")
    func request() throws {
        let harness = try EngineHarness()
        let out = harness.lines(#"{"jsonrpc":"2.0","id":1,"method":"echo","params":{"b":1,"a":[2]}}"# + "\n")
        #expect(out == [#"{"jsonrpc":"2.0","id":1,"result":{"b":1,"a":[2]}}"#])
        #expect(harness.handler.methods == ["echo"])
    }

    @Test("member order in the request does not matter")
    func memberOrder() throws {
        let harness = try EngineHarness()
        let out = harness.lines(#"{"params":[1],"method":"echo","id":"x","jsonrpc":"2.0"}"# + "\n")
        #expect(out == [#"{"jsonrpc":"2.0","id":"x","result":[1]}"#])
    }

    @Test(
        "ids are echoed exactly",
        arguments: [
            (#""abc""#, #""abc""#), ("0", "0"), ("-7", "-7"), ("9223372036854775807", "9223372036854775807"),
            ("1.5", "1.5"), ("1.0", "1.0"), (#""""#, #""""#), (#""é☃""#, #""é☃""#), ("null", "null"),
        ])
    func idsEchoed(id: String, echoed: String) throws {
        let harness = try EngineHarness()
        let out = harness.lines(#"{"jsonrpc":"2.0","id":\#(id),"method":"echo"}"# + "\n")
        #expect(out == [#"{"jsonrpc":"2.0","id":\#(echoed),"result":null}"#])
    }

    @Test("a handler error becomes an error response with code, message and data")
    func handlerError() throws {
        let harness = try EngineHarness()
        let out = harness.lines(#"{"jsonrpc":"2.0","id":7,"method":"fail"}"# + "\n")
        #expect(out == [#"{"jsonrpc":"2.0","id":7,"error":{"code":1000,"message":"No such thing","data":{"reason":"notFound","kind":"device"}}}"#])
    }

    @Test("an unknown method is methodNotFound")
    func unknownMethod() throws {
        let harness = try EngineHarness()
        let replies = try harness.replies(#"{"jsonrpc":"2.0","id":"1","method":"foobar"}"# + "\n")
        #expect(replies.map(ErrorReply.init) == [methodNotFound("1")])
    }

    @Test("a notification is carried out and not answered")
    func notification() throws {
        let harness = try EngineHarness()
        #expect(harness.send(#"{"jsonrpc":"2.0","method":"echo","params":[1]}"# + "\n").isEmpty)
        #expect(harness.send(#"{"jsonrpc":"2.0","method":"fail"}"# + "\n").isEmpty)
        #expect(harness.send(#"{"jsonrpc":"2.0","method":"foobar"}"# + "\n").isEmpty)
        #expect(harness.handler.methods == ["echo", "fail", "foobar"])
        #expect(harness.handler.calls.allSatisfy { $0.id == nil })
    }

    @Test("notifications a request causes are written before its response")
    func emittedNotificationsFirst() throws {
        let harness = try EngineHarness()
        let out = harness.lines(#"{"jsonrpc":"2.0","id":1,"method":"notify"}"# + "\n")
        #expect(
            out == [
                #"{"jsonrpc":"2.0","method":"event/first","params":{"n":1}}"#,
                #"{"jsonrpc":"2.0","method":"event/second","params":{"n":2}}"#,
                #"{"jsonrpc":"2.0","id":1,"result":{"done":true}}"#,
            ])
    }

    @Test("notifications caused by a notification are still written")
    func emittedByNotification() throws {
        let harness = try EngineHarness()
        let out = harness.lines(#"{"jsonrpc":"2.0","method":"notify"}"# + "\n")
        #expect(out.count == 2)
    }

    @Test("requests are answered in the order they arrive")
    func order() throws {
        let harness = try EngineHarness()
        let input = (0..<50).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"count"}"# }.joined(separator: "\n") + "\n"
        let replies = try harness.replies(input)
        #expect(replies.map { $0["id"] } == (0..<50).map { JSON.int($0) })
        #expect(replies.map { $0["result"] } == (0..<50).map { JSON.int($0) })
    }

    @Test("params may be an object, an array, or absent; they reach the handler as sent")
    func paramsPassed() throws {
        let harness = try EngineHarness()
        _ = harness.send(
            #"{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":1}}"# + "\n"
                + #"{"jsonrpc":"2.0","id":2,"method":"echo","params":[1,2]}"# + "\n"
                + #"{"jsonrpc":"2.0","id":3,"method":"echo"}"# + "\n"
                + #"{"jsonrpc":"2.0","id":4,"method":"echo","params":[]}"# + "\n")
        #expect(harness.handler.calls.map(\.params) == [["a": 1], [1, 2], nil, []])
        #expect(harness.handler.calls.map(\.id) == [.int(1), .int(2), .int(3), .int(4)])
    }
}

@Suite("RPCEngine: invalid messages")
struct RPCEngineInvalidTests {
    @Test("bad JSON is a parse error with id null, line and column, and the next line is served")
    func parseErrorThenServed() throws {
        let harness = try EngineHarness()
        let replies = try harness.replies(
            #"{"jsonrpc":"2.0","method":"echo","params":"bar","baz]"# + "\n"
                + #"{"jsonrpc":"2.0","id":2,"method":"echo"}"# + "\n")
        #expect(replies.count == 2)
        #expect(ErrorReply(replies[0]) == parseError())
        #expect(replies[0]["error"]?["data"]?["line"] == 1)
        #expect(replies[0]["error"]?["data"]?["column"]?.intValue.map { $0 >= 1 } == true)
        #expect(replies[1]["result"] == .null)
        #expect(harness.handler.methods == ["echo"])
    }

    @Test("a parse error's column counts the whitespace before the message on its line, as under Content-Length")
    func parseErrorColumnCountsIndent() throws {
        let harness = try EngineHarness()
        let replies = try harness.replies("\n \t {\"a\":1,,}\n{\"a\":1,,}\n")
        #expect(replies.map { $0["error"]?["data"]?["column"] } == [11, 8])
        #expect(harness.lines("  {\"a\":1,,}").isEmpty)  // the last line, unterminated: answered at the end of input
        #expect(try EngineHarness.lines(harness.finish()).map { try JSONParser.parse($0)["error"]?["data"]?["column"] } == [10])
        let framed = try EngineHarness()
        let body = " \t {\"a\":1,,}"
        let answer = String(decoding: framed.send("Content-Length: \(body.utf8.count)\r\n\r\n\(body)"), as: UTF8.self)
        #expect(answer.contains(#""line":1,"column":11}"#))
    }

    @Test("parse errors never quote the input")
    func parseErrorDoesNotQuote() throws {
        let harness = try EngineHarness()
        let out = harness.send(
            #"{"jsonrpc":"2.0","id":1,"method":"x","params":{"pin":"hunter2"} hunter2}"# + "\n"
                + #"{"pin":"hunter2","pin":"hunter2"}"# + "\n")
        let text = String(decoding: out, as: UTF8.self)
        #expect(EngineHarness.lines(out).count == 2)
        #expect(!text.contains("hunter2"))
    }

    @Test("duplicate keys, invalid UTF-8 and nesting 65 deep are parse errors; 64 deep is not")
    func parseErrorKinds() throws {
        let harness = try EngineHarness()
        var input = utf8(#"{"jsonrpc":"2.0","id":1,"id":2,"method":"echo"}"# + "\n")
        input += utf8(#"{"jsonrpc":"2.0","id":3,"method":"echo","params":[""#) + [0xC3, 0x28] + utf8("\"]}\n")
        input += utf8(
            #"{"jsonrpc":"2.0","id":4,"method":"echo","params":"# + String(repeating: "[", count: 64)
                + String(repeating: "]", count: 64) + "}\n")
        input += utf8(
            #"{"jsonrpc":"2.0","id":5,"method":"echo","params":"# + String(repeating: "[", count: 63)
                + String(repeating: "]", count: 63) + "}\n")
        let replies = EngineHarness.lines(harness.send(input)).compactMap { try? JSONParser.parse($0) }
        #expect(replies.count == 4)
        #expect(replies.prefix(3).map(ErrorReply.init) == [parseError(), parseError(), parseError()])
        #expect(replies[3]["id"] == 5)
        #expect(replies[3]["result"]?.depth == 63)
    }

    @Test("nesting 65 deep in a member a request does not read is still a parse error; brackets in strings do not count")
    func depthOfUnreadMembers() throws {
        let harness = try EngineHarness()
        let deep = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        let brackets = String(repeating: "[", count: 100)
        let replies = try harness.replies(
            #"{"jsonrpc":"2.0","id":1,"method":"echo","extra":\#(deep)}"# + "\n"
                + #"{"jsonrpc":"2.0","id":2,"method":"echo","extra":"\#(brackets)"}"# + "\n")
        #expect(replies.count == 2)
        #expect(ErrorReply(replies[0]) == parseError())
        #expect(replies[1]["id"] == 2)
        #expect(replies[1]["result"] != nil)
    }

    @Test("a request that is not an object is invalidRequest", arguments: ["1", #""foo""#, "null", "true"])
    func notAnObject(text: String) throws {
        let harness = try EngineHarness()
        #expect(try harness.replies(text + "\n").map(ErrorReply.init) == [invalidRequest()])
    }

    @Test(
        "an id that is an object, array or boolean is invalidRequest with id null",
        arguments: ["{}", "[]", "[1]", "true", "false", #"{"a":1}"#])
    func invalidID(id: String) throws {
        let harness = try EngineHarness()
        let replies = try harness.replies(#"{"jsonrpc":"2.0","id":\#(id),"method":"echo"}"# + "\n")
        #expect(replies.map(ErrorReply.init) == [invalidRequest()])
        #expect(harness.handler.calls.isEmpty)
    }

    @Test(
        "a wrong or missing jsonrpc member is invalidRequest, under the request's id",
        arguments: [
            #""1.0""#, "2.0", "2", #""2""#, #""2.00""#, "null", #"" 2.0""#,
        ])
    func wrongVersion(version: String) throws {
        let harness = try EngineHarness()
        let replies = try harness.replies(
            #"{"jsonrpc":\#(version),"id":5,"method":"echo"}"# + "\n"
                + #"{"id":"six","method":"echo"}"# + "\n")
        #expect(replies.map(ErrorReply.init) == [invalidRequest(5), invalidRequest("six")])
        #expect(harness.handler.calls.isEmpty)
    }

    @Test("a wrong jsonrpc member without an id is still answered, with id null")
    func wrongVersionNoID() throws {
        let harness = try EngineHarness()
        #expect(try harness.replies(#"{"jsonrpc":"1.0","method":"echo"}"# + "\n").map(ErrorReply.init) == [invalidRequest()])
    }

    @Test("a method that is not a string is invalidRequest", arguments: ["1", "null", "[]", "{}", "true"])
    func nonStringMethod(method: String) throws {
        let harness = try EngineHarness()
        let replies = try harness.replies(
            #"{"jsonrpc":"2.0","id":1,"method":\#(method),"params":"bar"}"# + "\n"
                + #"{"jsonrpc":"2.0","method":\#(method)}"# + "\n")
        #expect(replies.map(ErrorReply.init) == [invalidRequest(1), invalidRequest()])
        #expect(harness.handler.calls.isEmpty)
    }

    @Test("a missing method is invalidRequest")
    func missingMethod() throws {
        let harness = try EngineHarness()
        #expect(try harness.replies(#"{"jsonrpc":"2.0","id":1}"# + "\n").map(ErrorReply.init) == [invalidRequest(1)])
    }

    @Test("params that are not an object or array are invalidRequest", arguments: [#""bar""#, "null", "1", "true"])
    func scalarParams(params: String) throws {
        let harness = try EngineHarness()
        let replies = try harness.replies(
            #"{"jsonrpc":"2.0","id":1,"method":"echo","params":\#(params)}"# + "\n"
                + #"{"jsonrpc":"2.0","method":"echo","params":\#(params)}"# + "\n")
        #expect(replies.map(ErrorReply.init) == [invalidRequest(1), invalidRequest()])
        #expect(harness.handler.calls.isEmpty)
    }

    @Test("an empty line-free body, whitespace or garbage is a parse error")
    func garbage() throws {
        let harness = try EngineHarness()
        #expect(try harness.replies("hello\n{]\n").map(ErrorReply.init) == [parseError(), parseError()])
    }

    @Test("an oversized line is messageTooLarge with id null, and the next line is served")
    func tooLarge() throws {
        let harness = try EngineHarness(maxMessageBytes: 100)
        let long = #"{"jsonrpc":"2.0","id":1,"method":"echo","params":[""# + String(repeating: "x", count: 200) + #""]}"#
        let replies = try harness.replies(long + "\n" + #"{"jsonrpc":"2.0","id":2,"method":"echo"}"# + "\n")
        #expect(replies.count == 2)
        #expect(ErrorReply(replies[0]) == ErrorReply(id: .null, code: -32000, reason: "messageTooLarge"))
        #expect(replies[0]["error"]?["data"]?["limit"] == 100)
        #expect(replies[1]["id"] == 2)
        #expect(harness.handler.methods == ["echo"])
    }
}

@Suite("RPCEngine: batches")
struct RPCEngineBatchTests {
    @Test("a batch is answered with an array in request order, notifications left out")
    func batchOrder() throws {
        let harness = try EngineHarness()
        let out = harness.lines(
            "["
                + [
                    #"{"jsonrpc":"2.0","method":"echo","id":"1","params":[1,2,4]}"#,
                    #"{"jsonrpc":"2.0","method":"echo","params":[7]}"#,
                    #"{"jsonrpc":"2.0","method":"fail","id":"2"}"#,
                    #"{"foo":"boo"}"#,
                    #"{"jsonrpc":"2.0","method":"foo.get","params":{"name":"myself"},"id":"5"}"#,
                    #"{"jsonrpc":"2.0","method":"echo","id":"9","params":{"x":1}}"#,
                ].joined(separator: ",") + "]\n")
        #expect(out.count == 1)
        let replies = try JSONParser.parse(out.first ?? "").arrayValue ?? []
        #expect(replies.map { $0["id"] } == ["1", "2", nil, "5", "9"].map { $0.map(JSON.string) ?? .null })
        #expect(replies[0]["result"] == [1, 2, 4])
        #expect(ErrorReply(replies[1]) == ErrorReply(id: "2", code: 1000, reason: "notFound"))
        #expect(ErrorReply(replies[2]) == invalidRequest())
        #expect(ErrorReply(replies[3]) == methodNotFound("5"))
        #expect(replies[4]["result"] == ["x": 1])
        #expect(harness.handler.methods == ["echo", "echo", "fail", "foo.get", "echo"])
    }

    @Test("an empty batch is one invalidRequest object, not an array")
    func emptyBatch() throws {
        let harness = try EngineHarness()
        let out = harness.lines("[]\n")
        #expect(out.count == 1)
        let reply = try JSONParser.parse(out.first ?? "")
        #expect(ErrorReply(reply) == invalidRequest())
    }

    @Test("a batch of non-objects answers each with invalidRequest", arguments: [1, 3])
    func nonObjectBatch(count: Int) throws {
        let harness = try EngineHarness()
        let out = harness.lines("[" + (1...count).map(String.init).joined(separator: ",") + "]\n")
        #expect(out.count == 1)
        let replies = try JSONParser.parse(out.first ?? "").arrayValue ?? []
        #expect(replies.map(ErrorReply.init) == Array(repeating: invalidRequest(), count: count))
    }

    @Test("a batch with an empty batch inside answers the inner one invalidRequest")
    func nestedBatch() throws {
        let harness = try EngineHarness()
        let out = harness.lines(#"[[],[{"jsonrpc":"2.0","id":1,"method":"echo"}]]"# + "\n")
        let replies = try JSONParser.parse(out.first ?? "").arrayValue ?? []
        #expect(replies.map(ErrorReply.init) == [invalidRequest(), invalidRequest()])
        #expect(harness.handler.calls.isEmpty)
    }

    @Test("a batch of notifications is carried out and not answered at all")
    func allNotifications() throws {
        let harness = try EngineHarness()
        let out = harness.send(#"[{"jsonrpc":"2.0","method":"echo","params":[1,2,4]},{"jsonrpc":"2.0","method":"foobar"}]"# + "\n")
        #expect(out.isEmpty)
        #expect(harness.handler.methods == ["echo", "foobar"])
    }

    @Test("a batch that is not valid JSON is one parse error object")
    func invalidJSONBatch() throws {
        let harness = try EngineHarness()
        let out = harness.lines(#"[{"jsonrpc":"2.0","method":"echo","params":[1,2,4],"id":"1"},{"jsonrpc":"2.0","method""# + "\n")
        #expect(out.count == 1)
        let reply = try JSONParser.parse(out.first ?? "")
        #expect(ErrorReply(reply) == parseError())
        #expect(harness.handler.calls.isEmpty)
    }

    @Test("a batch whose responses pass the limit answers the requests left messageTooLarge and carries none of them out")
    func batchResponseLimit() throws {
        let harness = try EngineHarness()
        harness.engine.maxBatchResponseBytes = 100
        let items = (1...4).map { #"{"jsonrpc":"2.0","method":"echo","id":\#($0),"params":["0123456789012345678901234567890123456789"]}"# }
        let notification = #"{"jsonrpc":"2.0","method":"foobar"}"#
        let out = harness.lines("[" + (items[0...1] + [notification] + items[2...3]).joined(separator: ",") + "]\n")
        #expect(out.count == 1)
        let replies = try JSONParser.parse(out.first ?? "").arrayValue ?? []
        #expect(replies.map { $0["id"] } == [1, 2, 3, 4])
        #expect(replies[0]["result"] == ["0123456789012345678901234567890123456789"])
        #expect(replies[1]["result"] == ["0123456789012345678901234567890123456789"])
        #expect(replies[2...].map(ErrorReply.init) == [3, 4].map { ErrorReply(id: .int($0), code: -32000, reason: "messageTooLarge") })
        #expect(replies[2]["error"]?["data"]?["limit"] == 100)
        // The first two passed 100 bytes: the notification and the last two requests were not carried out.
        #expect(harness.handler.methods == ["echo", "echo"])
    }

    @Test("exit is carried out even once a batch's responses passed the limit")
    func exitPastTheBatchLimit() throws {
        let harness = try EngineHarness()
        harness.engine.maxBatchResponseBytes = 10
        let out = harness.lines(
            #"[{"jsonrpc":"2.0","method":"echo","id":1,"params":["0123456789"]},{"jsonrpc":"2.0","method":"exit"},"#
                + #"{"jsonrpc":"2.0","method":"echo","id":2}]"# + "\n")
        let replies = try JSONParser.parse(out.first ?? "").arrayValue ?? []
        #expect(replies.map { $0["id"] } == [1, 2])
        #expect(ErrorReply(replies[1]) == ErrorReply(id: 2, code: -32000, reason: "messageTooLarge"))
        #expect(harness.engine.exitRequested)
    }

    @Test("notifications emitted inside a batch come before the batch's array")
    func emittedInBatch() throws {
        let harness = try EngineHarness()
        let out = harness.lines(#"[{"jsonrpc":"2.0","id":1,"method":"notify"},{"jsonrpc":"2.0","id":2,"method":"echo"}]"# + "\n")
        #expect(out.count == 3)
        #expect(out.first?.contains("event/first") == true)
        #expect(out.last?.hasPrefix("[") == true)
    }
}
