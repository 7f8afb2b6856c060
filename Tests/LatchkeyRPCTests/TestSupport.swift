import LatchkeyJSON
import LatchkeyRPC
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func utf8(_ text: String) -> [UInt8] { Array(text.utf8) }

/// A pipe whose write end a `FrameWriter` writes to and whose read end the test drains.
///
/// Outputs in these tests stay below the pipe's capacity (1 MiB on Linux), so nothing blocks.
final class OutputPipe {
    let readFD: Int32
    let writeFD: Int32

    init() throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw PipeError() }
        readFD = fds[0]
        writeFD = fds[1]
        _ = fcntl(readFD, F_SETFL, fcntl(readFD, F_GETFL) | O_NONBLOCK)
        #if os(Linux)
        // F_SETPIPE_SZ: room for 1 MiB, so a test that fills more than the default 64 KiB
        // before draining does not block in write(2).
        _ = fcntl(writeFD, 1031, Int32(1 << 20))
        #endif
    }

    deinit {
        close(readFD)
        closeWriteEnd()
    }

    private var writeClosed = false

    func closeWriteEnd() {
        if !writeClosed {
            close(writeFD)
            writeClosed = true
        }
    }

    /// Everything written so far.
    func drain() -> [UInt8] {
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(readFD, $0.baseAddress, $0.count) }
            if count > 0 {
                output.append(contentsOf: chunk[0..<count])
            } else if count < 0, errno == EINTR {
                continue
            } else {
                return output
            }
        }
    }

    struct PipeError: Error {}
}

/// A pipe the test fills (at most 64 KiB: it is written before anything reads) and closes,
/// read by a `StdioLoop` as its input.
final class InputPipe {
    let readFD: Int32
    let writeFD: Int32

    init(_ bytes: [UInt8], closeAfterWriting: Bool = true) throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw OutputPipe.PipeError() }
        readFD = fds[0]
        writeFD = fds[1]
        var offset = 0
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            while offset < raw.count {
                let written = write(writeFD, base + offset, raw.count - offset)
                if written <= 0 { break }
                offset += written
            }
        }
        if closeAfterWriting { close(writeFD) }
    }

    deinit { close(readFD) }
}

/// A handler that records what it was asked and answers from a small method table:
/// `echo` returns its params, `fail` an error, `notify` emits two notifications first,
/// `count` returns how many calls came before it; anything else is methodNotFound.
final class FakeHandler: RPCHandler {
    private(set) var calls: [RPCRequest] = []
    var methods: [String] { calls.map(\.method) }

    func handle(_ request: RPCRequest, emit: (JSON) -> Void) -> Result<JSON, RPCError> {
        calls.append(request)
        switch request.method {
        case "echo":
            return .success(request.params ?? .null)
        case "fail":
            return .failure(
                RPCError(
                    code: ErrorCode(1000, reason: "notFound"), message: "No such thing",
                    data: JSONObject([("kind", "device")])))
        case "notify":
            emit(RPCMessage.notification("event/first", params: ["n": 1]))
            emit(RPCMessage.notification("event/second", params: ["n": 2]))
            return .success(["done": true])
        case "count":
            return .success(.int(calls.count - 1))
        default:
            return .failure(.methodNotFound)
        }
    }
}

/// An engine over a `FakeHandler`, writing to a pipe.
final class EngineHarness {
    let handler = FakeHandler()
    let output: OutputPipe
    let writer: FrameWriter
    let engine: RPCEngine

    init(maxMessageBytes: Int = 1 << 20) throws {
        output = try OutputPipe()
        writer = FrameWriter(fd: output.writeFD)
        engine = RPCEngine(handler: handler, writer: writer, maxMessageBytes: maxMessageBytes)
    }

    /// Feeds `text`, flushes, and returns the raw bytes written.
    func send(_ text: String) -> [UInt8] { send(utf8(text)) }

    func send(_ bytes: [UInt8]) -> [UInt8] {
        engine.receive(bytes)
        writer.flush()
        return output.drain()
    }

    /// Signals end of input, flushes, and returns the raw bytes written.
    func finish() -> [UInt8] {
        engine.finishInput()
        writer.flush()
        return output.drain()
    }

    /// Feeds `text` and returns the reply lines as text.
    func lines(_ text: String) -> [String] { Self.lines(send(text)) }

    static func lines(_ bytes: [UInt8]) -> [String] {
        bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast().map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    /// Feeds `text` and returns the replies parsed.
    func replies(_ text: String) throws -> [JSON] {
        try lines(text).map { try JSONParser.parse($0) }
    }
}
