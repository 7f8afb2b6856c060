import Testing

@testable import LatchkeyRPC

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
        let input =
            "Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}"
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

    @Test(
        "a malformed Content-Length is a bad header; the next frame is served",
        arguments: [
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

    @Test("an oversized body shorter than announced gives way to the next frame's header, however the bytes arrive")
    func oversizedBodyCutShort() {
        let input = bytes("Content-Length: 2000000\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1}" + frame("[2]") + frame("[3]"))
        let expected = [.tooLarge, message("[2]"), message("[3]")]
        #expect(events([input], max: 64) == expected)
        #expect(eventsByteByByte(input, max: 64) == expected)
        #expect(eventsInChunks(input, size: 7, max: 64) == expected)
        #expect(events(frame(String(repeating: "x", count: 200)) + frame("[4]"), max: 64) == [.tooLarge, message("[4]")])
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

    @Test("a marker inside a body followed by blanks without end is no header line once it is longer than a header may be")
    func endlessBlanksAfterAMarkerInsideABody() {
        var splitter = MessageSplitter(maxMessageBytes: 1 << 20)
        let body = "Content-Length:" + String(repeating: " ", count: 85)
        splitter.append(bytes("Content-Length: 100\r\n\r\n" + body))
        #expect(splitter.next() == nil)  // the body is whole; the marker in it may yet begin a header line
        for _ in 0..<4 {
            splitter.append(bytes(String(repeating: " ", count: MessageSplitter.maxHeaderBytes)))
            if let event = splitter.next() {
                #expect(event == message(body))
                break
            }
        }
        #expect(splitter.buffer.count - splitter.start <= 2 * MessageSplitter.maxHeaderBytes)
        splitter.append(bytes(frame("[]")))
        #expect(splitter.next() == message("[]"))
    }

    @Test("a marker inside a body followed by digits without end is no header line after the 19th")
    func endlessDigitsAfterAMarkerInsideABody() {
        #expect(
            events("Content-Length: 40\r\n\r\nContent-Length:" + String(repeating: "9", count: 25) + frame("{}"))
                == [message("Content-Length:" + String(repeating: "9", count: 25)), message("{}")])
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
