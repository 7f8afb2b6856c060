@testable import LatchkeyRPC
import Testing

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

private func message(_ text: String) -> FrameEvent { .message(bytes(text)) }

/// A Content-Length frame around `body`.
private func frame(_ body: String, separator: String = "\r\n") -> String {
    "Content-Length: \(body.utf8.count)\(separator)\(separator)\(body)"
}

/// Every event the splitter yields for `chunks`, fed one after another, then at end of input.
private func events(_ chunks: [[UInt8]], max: Int = 1 << 20, finish: Bool = true) -> [FrameEvent] {
    var splitter = MessageSplitter(maxMessageBytes: max)
    var found: [FrameEvent] = []
    for chunk in chunks {
        splitter.append(chunk)
        while let event = splitter.next() { found.append(event) }
    }
    if finish, let last = splitter.finish() { found.append(last) }
    return found
}

private func events(_ text: String, max: Int = 1 << 20, finish: Bool = true) -> [FrameEvent] {
    events([bytes(text)], max: max, finish: finish)
}

/// The same input fed one byte at a time.
private func eventsByteByByte(_ input: [UInt8], max: Int = 1 << 20, finish: Bool = true) -> [FrameEvent] {
    events(input.map { [$0] }, max: max, finish: finish)
}

/// The same input fed in chunks of `size` bytes.
private func eventsInChunks(_ input: [UInt8], size: Int, max: Int = 1 << 20) -> [FrameEvent] {
    events(stride(from: 0, to: input.count, by: size).map { Array(input[$0..<min($0 + size, input.count)]) }, max: max)
}

@Suite("MessageSplitter: framing detection")
struct FramingDetectionTests {
    @Test("{ or [ first means newline-delimited", arguments: ["{}\n", "[1]\n", "  \r\n\t{}\n"])
    func newlineDelimited(text: String) {
        var splitter = MessageSplitter(maxMessageBytes: 100)
        splitter.append(bytes(text))
        #expect(splitter.next() != nil)
        #expect(splitter.framing == .newlineDelimited)
    }

    @Test("Content-Length: first means header framing, whatever the case of the name",
          arguments: ["Content-Length: 2\r\n\r\n{}", "content-length: 2\r\n\r\n{}", "\r\n  Content-Length: 2\r\n\r\n{}"])
    func contentLength(text: String) {
        var splitter = MessageSplitter(maxMessageBytes: 100)
        splitter.append(bytes(text))
        #expect(splitter.next() == message("{}"))
        #expect(splitter.framing == .contentLength)
    }

    @Test("nothing is decided on whitespace alone")
    func undecidedOnWhitespace() {
        var splitter = MessageSplitter(maxMessageBytes: 100)
        splitter.append(bytes(" \r\n\n\t "))
        #expect(splitter.next() == nil)
        #expect(splitter.framing == nil)
        splitter.append(bytes("{}\n"))
        #expect(splitter.next() == message("{}"))
        #expect(splitter.framing == .newlineDelimited)
    }

    @Test("the framing, once detected, does not change")
    func framingSticks() {
        #expect(events("{}\nContent-Length: 2\r\n\r\n{}\n") == [
            message("{}"), message("Content-Length: 2"), message("{}"),
        ])
    }

    @Test("a framing given up front is used as is")
    func givenFraming() {
        var splitter = MessageSplitter(maxMessageBytes: 100, framing: .contentLength)
        #expect(splitter.framing == .contentLength)
        splitter.append(bytes(frame("[1]")))
        #expect(splitter.next() == message("[1]"))
    }

    @Test("anything else is read as lines (and fails later as JSON)")
    func garbageIsLines() {
        #expect(events("hello\n{}\n") == [message("hello"), message("{}")])
    }
}

@Suite("MessageSplitter: newline-delimited")
struct NewlineDelimitedTests {
    @Test("one message a line")
    func lines() {
        #expect(events("{\"a\":1}\n[2]\n{}\n") == [message("{\"a\":1}"), message("[2]"), message("{}")])
    }

    @Test("\\r\\n line ends are accepted")
    func crlf() {
        #expect(events("{\"a\":1}\r\n{\"b\":2}\r\n") == [message("{\"a\":1}"), message("{\"b\":2}")])
    }

    @Test("empty and whitespace-only lines are ignored")
    func blankLines() {
        #expect(events("\n\n{}\n\r\n   \n\t\r\n[]\n\n") == [message("{}"), message("[]")])
    }

    @Test("surrounding spaces are trimmed; inner bytes are kept")
    func trimming() {
        #expect(events("  { \"a\" : 1 }  \r\n") == [message("{ \"a\" : 1 }")])
    }

    @Test("a lone \\r is not a line end")
    func loneCarriageReturn() {
        #expect(events("{}\r[]\n") == [message("{}\r[]")])
    }

    @Test("byte by byte gives the same messages")
    func byteByByte() {
        let input = bytes("{\"jsonrpc\":\"2.0\",\"id\":1}\r\n\n[1,2]\n  {}  \n{\"é\":\"☃\"}\n")
        let expected = [message("{\"jsonrpc\":\"2.0\",\"id\":1}"), message("[1,2]"), message("{}"), message("{\"é\":\"☃\"}")]
        #expect(events([input]) == expected)
        #expect(eventsByteByByte(input) == expected)
        for size in [2, 3, 5, 7, 13] {
            #expect(eventsInChunks(input, size: size) == expected)
        }
    }

    @Test("nothing is yielded before the newline arrives")
    func partialLineWaits() {
        var splitter = MessageSplitter(maxMessageBytes: 100)
        splitter.append(bytes("{\"a\":"))
        #expect(splitter.next() == nil)
        splitter.append(bytes("1}"))
        #expect(splitter.next() == nil)
        splitter.append(bytes("\n"))
        #expect(splitter.next() == message("{\"a\":1}"))
        #expect(splitter.next() == nil)
    }

    @Test("an unterminated last line is a message at finish()")
    func unterminatedLastLine() {
        #expect(events("{}\n{\"last\":true}", finish: false) == [message("{}")])
        #expect(events("{}\n{\"last\":true}") == [message("{}"), message("{\"last\":true}")])
        #expect(events("{\"only\":1}  \r") == [message("{\"only\":1}")])
    }

    @Test("finish() yields nothing for trailing whitespace, and only once")
    func finishOnce() {
        var splitter = MessageSplitter(maxMessageBytes: 100)
        splitter.append(bytes("{}\n  \r\n "))
        #expect(splitter.next() == message("{}"))
        #expect(splitter.next() == nil)
        #expect(splitter.finish() == nil)
        var other = MessageSplitter(maxMessageBytes: 100)
        other.append(bytes("[1]"))
        #expect(other.next() == nil)
        #expect(other.finish() == message("[1]"))
        #expect(other.finish() == nil)
    }

    @Test("a line of exactly the limit is accepted; one byte more is tooLarge")
    func limitBoundary() {
        let exact = "[" + String(repeating: "1", count: 8) + "]"  // 10 bytes
        let over = "[" + String(repeating: "1", count: 9) + "]"   // 11 bytes
        #expect(events(exact + "\n", max: 10) == [message(exact)])
        #expect(events(exact + "\r\n", max: 10) == [message(exact)])
        #expect(eventsByteByByte(bytes(exact + "\r\n"), max: 10) == [message(exact)])
        #expect(events(over + "\n", max: 10) == [.tooLarge])
        #expect(eventsByteByByte(bytes(over + "\n"), max: 10) == [.tooLarge])
        #expect(events(exact, max: 10) == [message(exact)])
        #expect(events(over, max: 10) == [.tooLarge])
    }

    @Test("an oversized line is skipped once and the next line is served")
    func oversizedThenResync() {
        let long = "{\"pad\":\"" + String(repeating: "x", count: 500) + "\"}"
        let input = bytes("{\"a\":1}\n" + long + "\n{\"b\":2}\n")
        let expected = [message("{\"a\":1}"), .tooLarge, message("{\"b\":2}")]
        #expect(events([input], max: 64) == expected)
        #expect(eventsByteByByte(input, max: 64) == expected)
        #expect(eventsInChunks(input, size: 100, max: 64) == expected)
    }

    @Test("an oversized line is reported before its end arrives, and not buffered")
    func oversizedReportedEarly() {
        var splitter = MessageSplitter(maxMessageBytes: 64)
        splitter.append(bytes("{\"pad\":\"" + String(repeating: "x", count: 100)))
        #expect(splitter.next() == .tooLarge)
        #expect(splitter.next() == nil)
        for _ in 0..<100 {
            splitter.append(bytes(String(repeating: "y", count: 1000)))
            #expect(splitter.next() == nil)
        }
        splitter.append(bytes("\"}\n{}\n"))
        #expect(splitter.next() == message("{}"))
        #expect(splitter.next() == nil)
        #expect(splitter.finish() == nil)
    }

    @Test("an oversized line cut off by end of input is reported once")
    func oversizedAtEnd() {
        let long = String(repeating: "x", count: 500)
        #expect(events("{}\n" + long, max: 64) == [message("{}"), .tooLarge])
        #expect(eventsByteByByte(bytes("{}\n" + long), max: 64) == [message("{}"), .tooLarge])
    }

    @Test("two oversized lines in a row are two tooLarge events")
    func twoOversized() {
        let long = String(repeating: "x", count: 200)
        let input = bytes(long + "\n" + long + "\n{}\n")
        #expect(events([input], max: 64) == [.tooLarge, .tooLarge, message("{}")])
        #expect(eventsByteByByte(input, max: 64) == [.tooLarge, .tooLarge, message("{}")])
    }

    @Test("the verdict on a line does not depend on how it is chunked")
    func paddedLineChunkingIndependent() {
        let exact = "[" + String(repeating: "1", count: 8) + "]"  // 10 bytes
        let input = bytes("   " + exact + "   \n")
        #expect(events([input], max: 10) == [message(exact)])
        #expect(eventsByteByByte(input, max: 10) == [message(exact)])
        #expect(eventsInChunks(input, size: 4, max: 10) == [message(exact)])
        let over = bytes("  [" + String(repeating: "1", count: 9) + "] \n{}\n")  // 11 bytes of content
        #expect(events([over], max: 10) == [.tooLarge, message("{}")])
        #expect(eventsByteByByte(over, max: 10) == [.tooLarge, message("{}")])
    }

    @Test("whitespace padding longer than the limit is dropped as it arrives; content after it is too large")
    func longPadding() {
        let padding = String(repeating: " ", count: 100)
        let padded = bytes("[1]" + padding + "\n{}\n")
        #expect(events([padded], max: 10) == [message("[1]"), message("{}")])
        #expect(eventsInChunks(padded, size: 7, max: 10) == [message("[1]"), message("{}")])
        let split = bytes("[1" + padding + "]\n{}\n")
        #expect(events([split], max: 10) == [.tooLarge, message("{}")])
        #expect(eventsInChunks(split, size: 7, max: 10) == [.tooLarge, message("{}")])
        #expect(eventsByteByByte(split, max: 10) == [.tooLarge, message("{}")])
    }

    @Test("a long stream of small lines stays correct across buffer compaction")
    func manyLines() {
        var text = ""
        var expected: [FrameEvent] = []
        for index in 0..<5000 {
            let line = "{\"id\":\(index)}"
            text += line + (index % 3 == 0 ? "\r\n" : "\n")
            expected.append(message(line))
        }
        #expect(eventsInChunks(bytes(text), size: 4096) == expected)
        #expect(eventsInChunks(bytes(text), size: 77) == expected)
    }
}

@Suite("MessageSplitter: Content-Length")
struct ContentLengthTests {
    @Test("one frame, then another")
    func frames() {
        #expect(events(frame("{\"a\":1}") + frame("[]")) == [message("{\"a\":1}"), message("[]")])
    }

    @Test("\\n\\n also ends the header block")
    func bareNewlines() {
        #expect(events(frame("{}", separator: "\n") + frame("[]", separator: "\n")) == [message("{}"), message("[]")])
    }

    @Test("other headers are allowed and the name is case-insensitive")
    func otherHeaders() {
        let input = "Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}"
            + "Content-Type: x\r\ncontent-LENGTH:3\r\n\r\n[1]"
        #expect(events(input) == [message("{}"), message("[1]")])
    }

    @Test("spaces around the value are allowed")
    func valueWhitespace() {
        #expect(events("Content-Length:   2  \r\n\r\n{}") == [message("{}")])
    }

    @Test("the body is exactly Content-Length bytes, newlines included")
    func bodyIsExact() {
        let body = "{\n\"a\" : \"é\"\r\n}"
        #expect(events(frame(body)) == [message(body)])
    }

    @Test("whitespace between frames is skipped")
    func whitespaceBetweenFrames() {
        #expect(events(frame("{}") + "\r\n\r\n  " + frame("[]")) == [message("{}"), message("[]")])
    }

    @Test("headers split across chunks")
    func splitHeaders() {
        var splitter = MessageSplitter(maxMessageBytes: 100)
        for part in ["Content-Le", "ngth: 7", "\r", "\n", "\r", "\n"] {
            splitter.append(bytes(part))
            #expect(splitter.next() == nil)
        }
        splitter.append(bytes("{\"a\":1}"))
        #expect(splitter.next() == message("{\"a\":1}"))
        #expect(splitter.framing == .contentLength)
    }

    @Test("a body split across chunks waits for its last byte")
    func splitBody() {
        var splitter = MessageSplitter(maxMessageBytes: 100)
        splitter.append(bytes("Content-Length: 13\r\n\r\n{\"echo\""))
        #expect(splitter.next() == nil)
        splitter.append(bytes(":\"hi"))
        #expect(splitter.next() == nil)
        splitter.append(bytes("\"}Content-Length: 2\r\n\r\n{"))
        #expect(splitter.next() == message("{\"echo\":\"hi\"}"))
        #expect(splitter.next() == nil)
        splitter.append(bytes("}"))
        #expect(splitter.next() == message("{}"))
    }

    @Test("byte by byte and in odd chunks gives the same messages")
    func byteByByte() {
        let input = bytes(frame("{\"jsonrpc\":\"2.0\",\"id\":1}") + frame("[{},{}]", separator: "\n") + "\r\n" + frame("\"☃\""))
        let expected = [message("{\"jsonrpc\":\"2.0\",\"id\":1}"), message("[{},{}]"), message("\"☃\"")]
        #expect(events([input]) == expected)
        #expect(eventsByteByByte(input) == expected)
        for size in [2, 3, 5, 7, 13] {
            #expect(eventsInChunks(input, size: size) == expected)
        }
    }

    @Test("a zero-length body is an empty message")
    func emptyBody() {
        #expect(events("Content-Length: 0\r\n\r\n" + frame("{}")) == [.message([]), message("{}")])
    }

    @Test("a body of exactly the limit is accepted; one byte more is skipped")
    func limitBoundary() {
        let exact = "[" + String(repeating: "1", count: 8) + "]"
        let over = "[" + String(repeating: "1", count: 9) + "]"
        #expect(events(frame(exact), max: 10) == [message(exact)])
        #expect(events(frame(over) + frame("{}"), max: 10) == [.tooLarge, message("{}")])
    }

    @Test("an oversized body is skipped, split across chunks or not, and the next frame served")
    func oversizedBody() {
        let big = "{\"pad\":\"" + String(repeating: "x", count: 1000) + "\"}"
        let input = bytes(frame("[1]") + frame(big) + frame("[2]"))
        let expected = [message("[1]"), .tooLarge, message("[2]")]
        #expect(events([input], max: 64) == expected)
        #expect(eventsByteByByte(input, max: 64) == expected)
        #expect(eventsInChunks(input, size: 100, max: 64) == expected)
    }

    @Test("an oversized body is reported as soon as its header is read")
    func oversizedReportedEarly() {
        var splitter = MessageSplitter(maxMessageBytes: 64)
        splitter.append(bytes("Content-Length: 1000000\r\n\r\n"))
        #expect(splitter.next() == .tooLarge)
        splitter.append([UInt8](repeating: 0x20, count: 999_999))
        #expect(splitter.next() == nil)
        splitter.append([0x20] + bytes(frame("{}")))
        #expect(splitter.next() == message("{}"))
    }

    @Test("a malformed Content-Length is a bad header; the next frame is served", arguments: [
        "abc", "-5", "", "1.5", "0x10", "99999999999999999999999",
    ])
    func badValue(value: String) {
        let input = "Content-Length: \(value)\r\n\r\n" + frame("{}")
        #expect(events(input) == [.badHeader, message("{}")])
    }

    @Test("a header block with no Content-Length is bad; the next frame is served")
    func missingLength() {
        let input = frame("[0]") + "Content-Type: text/plain\r\n\r\n" + frame("{}")
        #expect(events(input) == [message("[0]"), .badHeader, message("{}")])
    }

    @Test("a header line without a colon is bad")
    func headerWithoutColon() {
        let input = frame("[0]") + "Content-Length 2\r\n\r\n{}" + frame("[1]")
        #expect(events(input) == [message("[0]"), .badHeader, message("[1]")])
    }

    @Test("after a bad header, garbage up to the next Content-Length: is skipped")
    func badHeaderResyncSkipsGarbage() {
        let input = "Content-Length: x\r\n\r\n{\"pin\":\"1234\"} trailing junk " + frame("{\"ok\":1}")
        #expect(events(input) == [.badHeader, message("{\"ok\":1}")])
        #expect(eventsByteByByte(bytes(input)) == [.badHeader, message("{\"ok\":1}")])
    }

    @Test("after a bad header with a body, a frame that arrives later is served")
    func badHeaderThenLaterFrame() {
        var splitter = MessageSplitter(maxMessageBytes: 1000)
        splitter.append(bytes(frame("{}")))
        #expect(splitter.next() == message("{}"))
        splitter.append(bytes("Content-Length: x\r\n\r\n{\"id\":1}"))
        #expect(splitter.next() == .badHeader)
        #expect(splitter.next() == nil)
        splitter.append(bytes(frame("{\"id\":2}")))
        #expect(splitter.next() == message("{\"id\":2}"))
    }

    @Test("after a bad header, a marker split across chunks is still found")
    func badHeaderResyncSplitMarker() {
        let expected: [FrameEvent] = [.badHeader, message("{}")]
        #expect(events([bytes("Content-Length: x\r\n\r\njunk junk Conte"), bytes("nt-Length: 2\r\n\r\n{}")]) == expected)
        #expect(events([bytes("Content-Length: x\r\n\r\njunk junk C"), bytes("ONTENT-length: 2\r\n\r\n{}")]) == expected)
        #expect(eventsByteByByte(bytes("Content-Length: x\r\n\r\nabc" + frame("{}"))) == expected)
    }

    @Test("after a bad header, a lowercase content-length: frame is served")
    func badHeaderResyncLowercase() {
        let input = "content-length: 2\r\n\r\n{}" + "content-length: x\r\n\r\n" + "content-length: 3\r\n\r\n[1]"
        #expect(events(input) == [message("{}"), .badHeader, message("[1]")])
    }

    @Test("a header block still open past the header limit is bad; the next frame is served")
    func endlessHeader() {
        var splitter = MessageSplitter(maxMessageBytes: 100)
        splitter.append(bytes(frame("[0]")))
        #expect(splitter.next() == message("[0]"))
        splitter.append(bytes("Content-Length: 2\r\nX-Pad: "))
        var found: [FrameEvent] = []
        for _ in 0..<10 {
            splitter.append(bytes(String(repeating: "p", count: 1000)))
            while let event = splitter.next() { found.append(event) }
        }
        #expect(found == [.badHeader])
        splitter.append(bytes("\r\n\r\n" + frame("[1]")))
        while let event = splitter.next() { found.append(event) }
        #expect(found.first == .badHeader)
        #expect(found.last == message("[1]"))
    }

    @Test("a long header block that is complete when read is accepted")
    func longCompleteHeader() {
        let input = "Content-Length: 2\r\nX-Pad: " + String(repeating: "p", count: MessageSplitter.maxHeaderBytes) + "\r\n\r\n{}"
        #expect(events(input) == [message("{}")])
    }

    @Test("finish() drops a frame cut short by end of input")
    func truncatedFrameAtEnd() {
        #expect(events(frame("{}") + "Content-Length: 10\r\n\r\n{\"a\"") == [message("{}")])
        #expect(events(frame("{}") + "Content-Len") == [message("{}")])
    }

    @Test("many frames stay correct across buffer compaction")
    func manyFrames() {
        var text = ""
        var expected: [FrameEvent] = []
        for index in 0..<3000 {
            let body = "{\"id\":\(index)}"
            text += frame(body)
            expected.append(message(body))
        }
        #expect(eventsInChunks(bytes(text), size: 4096) == expected)
        #expect(eventsInChunks(bytes(text), size: 61) == expected)
    }
}

@Suite("MessageSplitter: byte order mark")
struct ByteOrderMarkTests {
    private let bom: [UInt8] = [0xEF, 0xBB, 0xBF]

    @Test("a BOM at the start of a newline-delimited stream is dropped")
    func ndjson() {
        #expect(events([bom + bytes("{}\n")]) == [message("{}")])
    }

    @Test("a BOM at the start of a Content-Length stream is dropped")
    func contentLength() {
        var splitter = MessageSplitter(maxMessageBytes: 100)
        splitter.append(bom + bytes(frame("{}")))
        #expect(splitter.next() == message("{}"))
        #expect(splitter.framing == .contentLength)
    }

    @Test("a BOM split across chunks is still dropped")
    func splitBOM() {
        #expect(events([[0xEF], [0xBB], [0xBF], bytes("{}\n")]) == [message("{}")])
        #expect(events([[0xEF, 0xBB], [0xBF] + bytes(frame("[]"))]) == [message("[]")])
    }

    @Test("a BOM later in the stream is data")
    func laterBOM() {
        #expect(events([bytes("{}\n") + bom + bytes("{}\n")]) == [message("{}"), .message(bom + bytes("{}"))])
    }

    @Test("only one BOM is dropped")
    func onlyOne() {
        #expect(events([bom + bom + bytes("{}\n")]) == [.message(bom + bytes("{}"))])
    }

    @Test("bytes that only begin like a BOM are data")
    func notABOM() {
        #expect(events([[0xEF, 0xBB, 0x41] + bytes("\n{}\n")]) == [.message([0xEF, 0xBB, 0x41]), message("{}")])
    }
}

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
