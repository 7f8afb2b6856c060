import LatchkeyJSON
import LatchkeyRPC
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("FrameWriter")
struct FrameWriterTests {
    @Test("newline-delimited: one compact line per message, nothing before flush")
    func newlineDelimited() throws {
        let pipe = try OutputPipe()
        let writer = FrameWriter(fd: pipe.writeFD)
        writer.enqueue(["a": "line\nbreak"])
        writer.enqueue([1, 2])
        #expect(writer.hasPending)
        #expect(pipe.drain().isEmpty)
        writer.flush()
        #expect(!writer.hasPending)
        #expect(pipe.drain() == utf8(#"{"a":"line\nbreak"}"# + "\n[1,2]\n"))
    }

    @Test("Content-Length: the header counts UTF-8 bytes of the body")
    func contentLength() throws {
        let pipe = try OutputPipe()
        let writer = FrameWriter(fd: pipe.writeFD, framing: .contentLength)
        writer.enqueue(["é": "☃😀"])
        writer.enqueue([])
        writer.flush()
        let body = #"{"é":"☃😀"}"#
        #expect(body.utf8.count == 16)
        #expect(pipe.drain() == utf8("Content-Length: 16\r\n\r\n\(body)Content-Length: 2\r\n\r\n[]"))
    }

    @Test("the framing can change between messages")
    func framingChange() throws {
        let pipe = try OutputPipe()
        let writer = FrameWriter(fd: pipe.writeFD)
        writer.enqueue(1)
        writer.framing = .contentLength
        writer.enqueue(2)
        writer.flush()
        #expect(pipe.drain() == utf8("1\nContent-Length: 1\r\n\r\n2"))
    }

    @Test("a large buffer is flushed on its own, and everything arrives in order")
    func autoFlush() throws {
        let pipe = try OutputPipe()
        let writer = FrameWriter(fd: pipe.writeFD)
        let text = String(repeating: "z", count: 40_000)
        writer.enqueue(.string(text))
        #expect(writer.hasPending)
        writer.enqueue(.string(text))
        #expect(!writer.hasPending)
        let first = pipe.drain()
        #expect(first.count == 2 * (text.utf8.count + 3))
        writer.enqueue(3)
        writer.flush()
        #expect(pipe.drain() == utf8("3\n"))
    }

    @Test("flushing nothing writes nothing")
    func emptyFlush() throws {
        let pipe = try OutputPipe()
        let writer = FrameWriter(fd: pipe.writeFD)
        writer.flush()
        writer.flush()
        #expect(pipe.drain().isEmpty)
    }

    @Test("a closed peer marks the writer broken; later writes are dropped without a crash")
    func brokenPipe() throws {
        signal(SIGPIPE, SIG_IGN)
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        close(fds[0])
        let writer = FrameWriter(fd: fds[1])
        writer.enqueue(["a": 1])
        writer.flush()
        #expect(writer.broken)
        #expect(!writer.hasPending)
        writer.enqueue(["b": 2])
        writer.flush()
        #expect(writer.broken)
        close(fds[1])
    }
}
