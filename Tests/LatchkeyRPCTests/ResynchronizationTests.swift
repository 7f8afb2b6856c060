import Testing

@testable import LatchkeyRPC

@Suite("MessageSplitter: resynchronization on the next Content-Length")
struct ResynchronizationTests {
    private let ping = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}"

    @Test("a body shorter than announced ends where the next frame's header begins; that frame is served")
    func shortBody() {
        let input = "Content-Length: 60\r\n\r\n{\"id\":1}" + frame(ping)
        let expected: [FrameEvent] = [message("{\"id\":1}"), message(ping)]
        #expect(events(input) == expected)
        #expect(eventsByteByByte(bytes(input)) == expected)
        #expect(eventsInChunks(bytes(input), size: 7) == expected)
    }

    @Test("a short body followed by a frame shorter than the announced remainder is still cut")
    func shortBodyWaitingForever() {
        var splitter = MessageSplitter(maxMessageBytes: 1000)
        splitter.append(bytes("Content-Length: 500\r\n\r\n{\"id\":1"))
        #expect(splitter.next() == nil)
        splitter.append(bytes(frame("{}")))
        #expect(splitter.next() == message("{\"id\":1"))
        #expect(splitter.next() == message("{}"))
        #expect(splitter.next() == nil)
    }

    @Test("a body that holds the marker in a JSON string is whole (no raw line end can follow it there)")
    func markerInsideString() {
        let body = "{\"echo\":\"Content-Length: 12\\r\\n\\r\\n\"}"
        #expect(events(frame(body) + frame("{}")) == [message(body), message("{}")])
        #expect(eventsByteByByte(bytes(frame(body) + frame("{}"))) == [message(body), message("{}")])
    }

    @Test("the tail of a body longer than announced answers one badHeader; the next frame is served")
    func longBody() {
        let input = "Content-Length: 10\r\n\r\n" + ping + frame(ping)
        let expected: [FrameEvent] = [message(String(ping.prefix(10))), .badHeader, message(ping)]
        #expect(events(input) == expected)
        #expect(eventsByteByByte(bytes(input)) == expected)
    }

    @Test("a tail that looks like a header name before the marker is still one badHeader")
    func tailLikeAToken() {
        let input = "Content-Length: 2\r\n\r\n{}abc" + frame("[1]")
        #expect(events(input) == [message("{}"), .badHeader, message("[1]")])
    }

    @Test("a tail with a colon on its own line before the header is no header")
    func tailWithColon() {
        let input = frame("{}") + ",\"x\":1}\r\n" + frame("[1]")
        #expect(events(input) == [message("{}"), .badHeader, message("[1]")])
    }

    @Test("an NDJSON line in a framed session answers one badHeader at once, and the next frame is served")
    func ndjsonLineInFramedSession() {
        var splitter = MessageSplitter(maxMessageBytes: 1000)
        splitter.append(bytes(frame("{}")))
        #expect(splitter.next() == message("{}"))
        splitter.append(bytes(ping + "\n"))
        #expect(splitter.next() == .badHeader)
        #expect(splitter.next() == nil)
        splitter.append(bytes(frame(ping)))
        #expect(splitter.next() == message(ping))
    }

    @Test("several junk lines before the next header answer one badHeader")
    func severalJunkLines() {
        let input = frame("{}") + "junk\r\nmore junk\n{\"a\":1}\n" + frame("[1]")
        #expect(events(input) == [message("{}"), .badHeader, message("[1]")])
    }

    @Test("a malformed Content-Length is bad as soon as its line is whole")
    func malformedLengthAtOnce() {
        var splitter = MessageSplitter(maxMessageBytes: 1000)
        splitter.append(bytes("Content-Length: 1x\r\n"))
        #expect(splitter.next() == .badHeader)
    }
}
