import LatchkeyJSON
import LatchkeyRPC
import Testing

@Suite("RPCEngine: exit, end of input and framing")
struct RPCEngineLifecycleTests {
    @Test("the exit notification stops: nothing after it is carried out or answered")
    func exitStops() throws {
        let harness = try EngineHarness()
        let out = harness.lines(
            #"{"jsonrpc":"2.0","id":1,"method":"echo"}"# + "\n"
                + #"{"jsonrpc":"2.0","method":"exit"}"# + "\n"
                + #"{"jsonrpc":"2.0","id":2,"method":"echo"}"# + "\n")
        #expect(out == [#"{"jsonrpc":"2.0","id":1,"result":null}"#])
        #expect(harness.engine.exitRequested)
        #expect(harness.handler.methods == ["echo"])
        #expect(harness.send(#"{"jsonrpc":"2.0","id":3,"method":"echo"}"# + "\n").isEmpty)
        #expect(harness.send(#"{"jsonrpc":"2.0","id":4,"method":"echo"}"#).isEmpty)
        #expect(harness.finish().isEmpty)
        #expect(harness.handler.methods == ["echo"])
    }

    @Test("a stop asked for before a read is looked at still lets its first message be answered, and no other")
    func stopAfterTheMessageInHand() throws {
        let harness = try EngineHarness()
        let two = #"{"jsonrpc":"2.0","id":1,"method":"echo"}"# + "\n" + #"{"jsonrpc":"2.0","id":2,"method":"echo"}"# + "\n"
        utf8(two).withUnsafeBytes { harness.engine.receive($0, shouldStop: { true }) }
        harness.writer.flush()
        #expect(EngineHarness.lines(harness.output.drain()) == [#"{"jsonrpc":"2.0","id":1,"result":null}"#])
        // The second message waits in the splitter for the next read.
        #expect(harness.lines("") == [#"{"jsonrpc":"2.0","id":2,"result":null}"#])
    }

    @Test("exit is not passed to the handler")
    func exitNotHandled() throws {
        let harness = try EngineHarness()
        #expect(harness.send(#"{"jsonrpc":"2.0","method":"exit","params":{}}"# + "\n").isEmpty)
        #expect(harness.engine.exitRequested)
        #expect(harness.handler.calls.isEmpty)
    }

    @Test("an invalid exit message does not stop the engine")
    func invalidExitIgnored() throws {
        let harness = try EngineHarness()
        let replies = try harness.replies(
            #"{"jsonrpc":"1.0","method":"exit"}"# + "\n"
                + #"{"jsonrpc":"2.0","method":"exit","params":"now"}"# + "\n"
                + #"{"jsonrpc":"2.0","id":1,"method":"echo"}"# + "\n")
        #expect(replies.count == 3)
        #expect(!harness.engine.exitRequested)
    }

    @Test("an unterminated last line is answered at end of input")
    func unterminatedLastLine() throws {
        let harness = try EngineHarness()
        #expect(harness.send(#"{"jsonrpc":"2.0","id":1,"method":"echo"}"#).isEmpty)
        #expect(EngineHarness.lines(harness.finish()) == [#"{"jsonrpc":"2.0","id":1,"result":null}"#])
    }

    @Test("input split anywhere gives the same replies")
    func splitInput() throws {
        let input = utf8(
            #"{"jsonrpc":"2.0","id":1,"method":"echo","params":["é"]}"# + "\r\n\n"
                + #"[{"jsonrpc":"2.0","id":2,"method":"echo"},{"jsonrpc":"2.0","method":"echo"}]"# + "\n")
        let whole = try EngineHarness()
        let expected = whole.send(input)
        let split = try EngineHarness()
        var output: [UInt8] = []
        for byte in input { output += split.send([byte]) }
        #expect(output == expected)
        #expect(EngineHarness.lines(expected).count == 2)
    }

    @Test("Content-Length input is answered in Content-Length frames")
    func contentLengthReplies() throws {
        let harness = try EngineHarness()
        let body = #"{"jsonrpc":"2.0","id":1,"method":"echo","params":["é"]}"#
        let out = harness.send("Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
        let reply = #"{"jsonrpc":"2.0","id":1,"result":["é"]}"#
        #expect(out == utf8("Content-Length: \(reply.utf8.count)\r\n\r\n\(reply)"))
        #expect(harness.writer.framing == .contentLength)
    }

    @Test("a bad Content-Length header is answered invalidRequest, framed, and the next frame served")
    func badHeaderReply() throws {
        let harness = try EngineHarness()
        let body = #"{"jsonrpc":"2.0","id":2,"method":"echo"}"#
        let out = harness.send(
            "Content-Length: \(body.utf8.count)\r\n\r\n\(body)Content-Length: nope\r\n\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        let bodies = try contentLengthFrames(out).map { try JSONParser.parse($0) }
        #expect(bodies.count == 3)
        guard bodies.count == 3 else { return }
        #expect(bodies[0]["id"] == 2)
        #expect(ErrorReply(bodies[1]) == invalidRequest())
        #expect(bodies[2]["id"] == 2)
    }

    @Test("an oversized Content-Length body is answered messageTooLarge, framed")
    func contentLengthTooLarge() throws {
        let harness = try EngineHarness(maxMessageBytes: 64)
        let big = #"{"jsonrpc":"2.0","id":1,"method":"echo","params":[""# + String(repeating: "x", count: 100) + #""]}"#
        let small = #"{"jsonrpc":"2.0","id":2,"method":"echo"}"#
        let out = harness.send("Content-Length: \(big.utf8.count)\r\n\r\n\(big)Content-Length: \(small.utf8.count)\r\n\r\n\(small)")
        let text = String(decoding: out, as: UTF8.self)
        #expect(text.hasPrefix("Content-Length: "))
        #expect(text.contains(#""code":-32000"#))
        #expect(text.hasSuffix(#"{"jsonrpc":"2.0","id":2,"result":null}"#))
    }
}
