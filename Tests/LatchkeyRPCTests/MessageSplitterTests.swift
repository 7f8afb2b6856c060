import Testing

@testable import LatchkeyRPC

@Suite("MessageSplitter: framing detection")
struct FramingDetectionTests {
    @Test("{ or [ first means newline-delimited", arguments: ["{}\n", "[1]\n", "  \r\n\t{}\n"])
    func newlineDelimited(text: String) {
        var splitter = MessageSplitter(maxMessageBytes: 100)
        splitter.append(bytes(text))
        #expect(splitter.next() != nil)
        #expect(splitter.framing == .newlineDelimited)
    }

    @Test(
        "Content-Length: first means header framing, whatever the case of the name",
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
        #expect(
            events("{}\nContent-Length: 2\r\n\r\n{}\n") == [
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
        let over = "[" + String(repeating: "1", count: 9) + "]"  // 11 bytes
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

@Suite("Byte search")
struct ByteSearchTests {
    @Test("the first byte at or after the start, as firstIndex(of:) on the slice finds it")
    func matchesSliceSearch() {
        var bytes = Array(repeating: UInt8(ascii: "x"), count: 100)
        for index in [0, 1, 31, 32, 63, 99] { bytes[index] = UInt8(ascii: "\n") }
        for start in 0...bytes.count {
            #expect(bytes.firstIndex(of: UInt8(ascii: "\n"), from: start) == bytes[start...].firstIndex(of: UInt8(ascii: "\n")))
        }
        #expect([UInt8]().firstIndex(of: 0, from: 0) == nil)
        #expect(bytes.firstIndex(of: 0, from: 200) == nil)
    }
}
