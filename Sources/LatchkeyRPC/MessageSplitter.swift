/// How messages are framed on the stream, detected from its first non-whitespace byte.
public enum Framing: Sendable, Equatable {
    /// One JSON message a line (`\r\n` accepted, empty lines ignored).
    case newlineDelimited
    /// The LSP base protocol: `Content-Length: N` headers, a blank line, then N bytes.
    case contentLength
}

/// What the splitter found in the stream.
public enum FrameEvent: Sendable, Equatable {
    /// One complete message body.
    case message([UInt8])
    /// A message over the size limit was skipped.
    case tooLarge
    /// A Content-Length header block that could not be read was skipped.
    case badHeader
}

/// Splits a byte stream into message bodies, whichever framing the peer chose.
///
/// Oversized messages are skipped without being buffered, so memory stays bounded.
public struct MessageSplitter: Sendable {
    public private(set) var framing: Framing?
    public let maxMessageBytes: Int

    var buffer: [UInt8] = []
    var start = 0
    /// Where the search for the next newline resumes (NDJSON).
    var scanned = 0
    /// Bytes still to drop: `nil` none, `.max` until the next newline (NDJSON).
    var discarding: Int?
    var sawFirstByte = false
    /// The Content-Length of the body being waited for.
    var pendingBody: Int?
    /// After a bad header block: looking for the next `Content-Length:` (any case).
    var resyncing = false
    /// Where the look for a header line inside the pending body resumes.
    var bodyScanned: Int?
    /// Where whitespace after a line's content was dropped (NDJSON): content after it makes the
    /// line too large.
    var paddedFrom: Int?
    /// Characters of whitespace dropped so far before the current line's content (NDJSON): what a
    /// parse error's column adds, so it counts on the line as sent.
    var dropped = 0
    /// The whitespace columns before the last message's content on its line (0 under Content-Length).
    public private(set) var indent = 0

    /// The longest header block accepted before it is declared bad.
    static let maxHeaderBytes = 8192

    public init(maxMessageBytes: Int, framing: Framing? = nil) {
        self.maxMessageBytes = maxMessageBytes
        self.framing = framing
    }

    /// Adds bytes read from the stream.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// Adds bytes read from the stream.
    public mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// The next event, or nil when more input is needed.
    public mutating func next() -> FrameEvent? {
        guard let event = nextInPlace() else { return nil }
        switch event {
        case .message(let range): return .message(Array(buffer[range]))
        case .tooLarge: return .tooLarge
        case .badHeader: return .badHeader
        }
    }

    /// An event whose message is still in the splitter's buffer (no copy).
    enum InPlaceEvent {
        case message(Range<Int>)
        case tooLarge
        case badHeader
    }

    /// The next event without copying the message out; read it with `withMessage` before the
    /// next `append`.
    mutating func nextInPlace() -> InPlaceEvent? {
        if framing == nil, !detect() { return nil }
        switch framing {
        case .contentLength: return nextContentLength()
        default: return nextLine()
        }
    }

    /// The bytes of a message returned by `nextInPlace`.
    func withMessage<T>(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) -> T) -> T {
        buffer.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    /// At end of input: an unterminated last line is still a message (a Content-Length frame cut short is dropped).
    public mutating func finish() -> FrameEvent? {
        guard framing == .newlineDelimited || framing == nil, discarding == nil, start < buffer.count else {
            return nil
        }
        let lineStart = start
        let line = trimmedLine(start, buffer.count)
        start = buffer.count
        scanned = start
        let padded = paddedFrom
        paddedFrom = nil
        guard let line else { return nil }
        if line.count > maxMessageBytes || (padded.map { line.upperBound > $0 } ?? false) { return .tooLarge }
        indent = dropped + line.lowerBound - lineStart
        dropped = 0
        return .message(Array(buffer[line]))
    }

    // MARK: detection

    private mutating func detect() -> Bool {
        if !sawFirstByte, buffer.count - start >= 1 {
            // A UTF-8 byte order mark at the start of the stream is dropped.
            let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
            let available = min(3, buffer.count - start)
            if Array(buffer[start..<start + available]) == Array(bom[0..<available]) {
                if available < 3 { return false }
                start += 3
            }
            sawFirstByte = true
        }
        skipWhitespace()
        scanned = start
        guard start < buffer.count else { return false }
        framing =
            (buffer[start] == UInt8(ascii: "C") || buffer[start] == UInt8(ascii: "c"))
            ? .contentLength : .newlineDelimited
        return true
    }

    // MARK: newline-delimited

    private mutating func nextLine() -> InPlaceEvent? {
        while true {
            if discarding != nil {
                guard let newline = buffer.firstIndex(of: UInt8(ascii: "\n"), from: scanned) else {
                    start = buffer.count
                    scanned = start
                    return nil
                }
                start = newline + 1
                scanned = start
                discarding = nil
                dropped = 0
                continue
            }
            guard let newline = buffer.firstIndex(of: UInt8(ascii: "\n"), from: scanned) else {
                scanned = buffer.count
                return arrivingLineVerdict()
            }
            let lineStart = start
            start = newline + 1
            scanned = start
            let padded = paddedFrom
            paddedFrom = nil
            let indentation = dropped
            dropped = 0
            guard let line = trimmedLine(lineStart, newline) else { continue }
            if line.count > maxMessageBytes || (padded.map { line.upperBound > $0 } ?? false) { return .tooLarge }
            indent = indentation + line.lowerBound - lineStart
            return .message(line)
        }
    }

    /// While a line is still arriving: it is too large as soon as its content (surrounding whitespace aside) passes the limit, the verdict it gets
    /// when it arrives whole, however it is chunked.
    ///
    /// Whitespace before the content is dropped as it comes; a run of whitespace after it longer than the
    /// limit is dropped too (remembered in `paddedFrom`: content after it makes the line too large), so
    /// memory stays bounded.
    private mutating func arrivingLineVerdict() -> InPlaceEvent? {
        skipWhitespace()
        var end = buffer.count
        while end > start, Self.isWhitespace(buffer[end - 1]) { end -= 1 }
        if end - start > maxMessageBytes || (paddedFrom.map { end > $0 } ?? false) {
            discarding = .max
            paddedFrom = nil
            dropped = 0
            start = buffer.count
            scanned = start
            return .tooLarge
        }
        if buffer.count - end > maxMessageBytes {
            buffer.removeSubrange(end..<buffer.count)
            scanned = end
            paddedFrom = end
        }
        return nil
    }

    /// Drops whitespace at `start`, counting in `dropped` the columns it took on the line it ends on.
    private mutating func skipWhitespace() {
        while start < buffer.count, Self.isWhitespace(buffer[start]) {
            dropped = buffer[start] == UInt8(ascii: "\n") ? 0 : dropped + 1
            start += 1
        }
    }

    /// The line without its `\r` and surrounding whitespace, or nil when it is blank.
    private func trimmedLine(_ from: Int, _ to: Int) -> Range<Int>? {
        var lower = from
        var upper = to
        while lower < upper, Self.isWhitespace(buffer[lower]) { lower += 1 }
        while upper > lower, Self.isWhitespace(buffer[upper - 1]) { upper -= 1 }
        return lower < upper ? lower..<upper : nil
    }

    // MARK: Content-Length
}
