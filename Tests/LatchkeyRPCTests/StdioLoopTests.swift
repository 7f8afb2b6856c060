import LatchkeyJSON
import LatchkeyRPC
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a `StdioLoop` over `input` (already written and closed) and returns what it wrote.
private func serve(_ input: [UInt8], handler: FakeHandler = FakeHandler(), maxMessageBytes: Int = 1 << 20) throws -> [UInt8] {
    let source = try InputPipe(input)
    let output = try OutputPipe()
    let writer = FrameWriter(fd: output.writeFD)
    let engine = RPCEngine(handler: handler, writer: writer, maxMessageBytes: maxMessageBytes)
    StdioLoop(engine: engine, inputFD: source.readFD).run()
    return output.drain()
}

@Suite("StdioLoop", .timeLimit(.minutes(1)))
struct StdioLoopTests {
    @Test("serves every line until end of input, the unterminated last one too")
    func untilEOF() throws {
        let out = try serve(
            utf8(
                #"{"jsonrpc":"2.0","id":1,"method":"echo"}"# + "\r\n\n"
                    + #"{"jsonrpc":"2.0","id":2,"method":"echo"}"#))
        #expect(
            EngineHarness.lines(out) == [
                #"{"jsonrpc":"2.0","id":1,"result":null}"#, #"{"jsonrpc":"2.0","id":2,"result":null}"#,
            ])
    }

    @Test("empty input: nothing written")
    func emptyInput() throws {
        #expect(try serve([]).isEmpty)
        #expect(try serve(utf8("\n\r\n  \n")).isEmpty)
    }

    @Test("stops at the exit notification and answers nothing after it")
    func exitStops() throws {
        let handler = FakeHandler()
        let out = try serve(
            utf8(
                #"{"jsonrpc":"2.0","id":1,"method":"echo"}"# + "\n"
                    + #"{"jsonrpc":"2.0","method":"exit"}"# + "\n"
                    + #"{"jsonrpc":"2.0","id":2,"method":"echo"}"# + "\n"), handler: handler)
        #expect(EngineHarness.lines(out) == [#"{"jsonrpc":"2.0","id":1,"result":null}"#])
        #expect(handler.methods == ["echo"])
    }

    @Test("exit stops even while the peer keeps its end open")
    func exitWithOpenInput() throws {
        let source = try InputPipe(utf8(#"{"jsonrpc":"2.0","method":"exit"}"# + "\n"), closeAfterWriting: false)
        defer { close(source.writeFD) }
        let output = try OutputPipe()
        let writer = FrameWriter(fd: output.writeFD)
        let engine = RPCEngine(handler: FakeHandler(), writer: writer, maxMessageBytes: 1 << 20)
        StdioLoop(engine: engine, inputFD: source.readFD).run()
        #expect(engine.exitRequested)
        #expect(output.drain().isEmpty)
    }

    // The input needs several reads; the replies fit in the output pipe.
    @Test("input larger than one read is served whole and in order")
    func manyReads() throws {
        let lines = (0..<1000).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"count","params":{"pad":"\#(String(repeating: "p", count: 60))"}}"# }
        let handler = FakeHandler()
        let input = utf8(lines.joined(separator: "\n") + "\n")
        #expect(input.count > 1 << 16)
        let source = try InputPipeFeeder(input)
        let output = try OutputPipe()
        let writer = FrameWriter(fd: output.writeFD)
        let engine = RPCEngine(handler: handler, writer: writer, maxMessageBytes: 1 << 20)
        StdioLoop(engine: engine, inputFD: source.readFD).run()
        source.wait()
        let replies = EngineHarness.lines(output.drain())
        #expect(replies.count == 1000)
        #expect(replies.last == #"{"jsonrpc":"2.0","id":999,"result":999}"#)
    }

    @Test("Content-Length input gets Content-Length replies")
    func contentLength() throws {
        let body = #"{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}"#
        let out = try serve(utf8("Content-Length: \(body.utf8.count)\r\n\r\n\(body)"))
        let reply = #"{"jsonrpc":"2.0","id":1,"result":[1]}"#
        #expect(out == utf8("Content-Length: \(reply.utf8.count)\r\n\r\n\(reply)"))
    }
}

/// A pipe written from another thread, for input larger than the pipe holds.
final class InputPipeFeeder: @unchecked Sendable {
    let readFD: Int32
    private let writeFD: Int32
    private var thread = pthread_t()
    private let data: [UInt8]

    init(_ bytes: [UInt8]) throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw OutputPipe.PipeError() }
        readFD = fds[0]
        writeFD = fds[1]
        data = bytes
        let unmanaged = Unmanaged.passRetained(self)
        let created = pthread_create(
            &thread, nil,
            { context in
                guard let context else { return nil }
                let feeder = Unmanaged<InputPipeFeeder>.fromOpaque(context).takeRetainedValue()
                feeder.feed()
                return nil
            }, unmanaged.toOpaque())
        if created != 0 {
            unmanaged.release()
            throw OutputPipe.PipeError()
        }
    }

    private func feed() {
        var offset = 0
        data.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            while offset < raw.count {
                let written = write(writeFD, base + offset, min(4096, raw.count - offset))
                if written > 0 { offset += written } else if errno != EINTR { break }
            }
        }
        close(writeFD)
    }

    func wait() { pthread_join(thread, nil) }

    deinit { close(readFD) }
}
