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
/// Oversized messages are skipped without being buffered, so memory stays bounded.
public struct MessageSplitter: Sendable {
    public private(set) var framing: Framing?
    public let maxMessageBytes: Int

    private var buffer: [UInt8] = []
    private var start = 0
    /// Where the search for the next newline resumes (NDJSON).
    private var scanned = 0
    /// Bytes still to drop: `nil` none, `.max` until the next newline (NDJSON).
    private var discarding: Int?
    private var sawFirstByte = false
    /// The Content-Length of the body being waited for.
    private var pendingBody: Int?
    /// After a bad header block: looking for the next `Content-Length:` (any case).
    private var resyncing = false
    /// Where whitespace after a line's content was dropped (NDJSON): content after it makes the
    /// line too large.
    private var paddedFrom: Int?

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

    /// At end of input: an unterminated last line is still a message.
    public mutating func finish() -> FrameEvent? {
        guard framing == .newlineDelimited || framing == nil, discarding == nil, start < buffer.count else {
            return nil
        }
        let line = trimmedLine(start, buffer.count)
        start = buffer.count
        scanned = start
        let padded = paddedFrom
        paddedFrom = nil
        guard let line else { return nil }
        if line.count > maxMessageBytes || (padded.map { line.upperBound > $0 } ?? false) { return .tooLarge }
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
        while start < buffer.count, Self.isWhitespace(buffer[start]) { start += 1 }
        scanned = start
        guard start < buffer.count else { return false }
        framing = (buffer[start] == UInt8(ascii: "C") || buffer[start] == UInt8(ascii: "c"))
            ? .contentLength : .newlineDelimited
        return true
    }

    // MARK: newline-delimited

    private mutating func nextLine() -> InPlaceEvent? {
        while true {
            if discarding != nil {
                guard let newline = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) else {
                    start = buffer.count
                    scanned = start
                    return nil
                }
                start = newline + 1
                scanned = start
                discarding = nil
                continue
            }
            guard let newline = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) else {
                scanned = buffer.count
                return arrivingLineVerdict()
            }
            let lineStart = start
            start = newline + 1
            scanned = start
            let padded = paddedFrom
            paddedFrom = nil
            guard let line = trimmedLine(lineStart, newline) else { continue }
            if line.count > maxMessageBytes || (padded.map { line.upperBound > $0 } ?? false) { return .tooLarge }
            return .message(line)
        }
    }

    /// While a line is still arriving: it is too large as soon as its content (surrounding
    /// whitespace aside) passes the limit, the verdict it gets when it arrives whole, however it
    /// is chunked. Whitespace before the content is dropped as it comes; a run of whitespace
    /// after it longer than the limit is dropped too (remembered in `paddedFrom`: content after
    /// it makes the line too large), so memory stays bounded.
    private mutating func arrivingLineVerdict() -> InPlaceEvent? {
        while start < buffer.count, Self.isWhitespace(buffer[start]) { start += 1 }
        var end = buffer.count
        while end > start, Self.isWhitespace(buffer[end - 1]) { end -= 1 }
        if end - start > maxMessageBytes || (paddedFrom.map { end > $0 } ?? false) {
            discarding = .max
            paddedFrom = nil
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

    /// The line without its `\r` and surrounding whitespace, or nil when it is blank.
    private func trimmedLine(_ from: Int, _ to: Int) -> Range<Int>? {
        var lower = from
        var upper = to
        while lower < upper, Self.isWhitespace(buffer[lower]) { lower += 1 }
        while upper > lower, Self.isWhitespace(buffer[upper - 1]) { upper -= 1 }
        return lower < upper ? lower..<upper : nil
    }

    // MARK: Content-Length

    private mutating func nextContentLength() -> InPlaceEvent? {
        while true {
            if resyncing {
                guard let found = findHeaderMarker() else { return nil }
                start = found
                resyncing = false
            }
            if let remaining = discarding {
                let available = buffer.count - start
                if available < remaining {
                    discarding = remaining - available
                    start = buffer.count
                    return nil
                }
                start += remaining
                discarding = nil
                continue
            }
            if let length = pendingBody {
                guard buffer.count - start >= length else { return nil }
                let body = start..<start + length
                start += length
                pendingBody = nil
                return .message(body)
            }
            while start < buffer.count, Self.isWhitespace(buffer[start]) { start += 1 }
            guard start < buffer.count else { return nil }
            guard let end = headerEnd() else {
                if buffer.count - start > Self.maxHeaderBytes {
                    skipToNextHeader(from: start + 1)
                    return .badHeader
                }
                return nil
            }
            let header = parseHeader(start..<end.headers)
            start = end.body
            guard let length = header else {
                skipToNextHeader(from: start)
                return .badHeader
            }
            if length > maxMessageBytes {
                discarding = length
                return .tooLarge
            }
            pendingBody = length
        }
    }

    /// The end of the header block (`\r\n\r\n`, or `\n\n`) after `start`.
    private func headerEnd() -> (headers: Int, body: Int)? {
        var index = start
        while index < buffer.count {
            if buffer[index] == UInt8(ascii: "\n") {
                if index + 1 < buffer.count, buffer[index + 1] == UInt8(ascii: "\n") {
                    return (index, index + 2)
                }
                if index + 2 < buffer.count, buffer[index + 1] == UInt8(ascii: "\r"), buffer[index + 2] == UInt8(ascii: "\n") {
                    return (index, index + 3)
                }
            }
            index += 1
        }
        return nil
    }

    /// The Content-Length named in a header block, or nil when it is missing or malformed.
    private func parseHeader(_ range: Range<Int>) -> Int? {
        let text = String(decoding: buffer[range], as: UTF8.self)
        var length: Int?
        for rawLine in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = rawLine.trimmingSuffix("\r")
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingWhitespace()
            if name == "content-length" {
                guard !value.isEmpty, value.allSatisfy(\.isASCII), let number = Int(value), number >= 0 else { return nil }
                length = number
            }
        }
        return length
    }

    /// Resynchronizes on the next `Content-Length:` header after a bad block.
    private mutating func skipToNextHeader(from: Int) {
        start = min(max(from, start), buffer.count)
        resyncing = true
    }

    private static let marker = Array("content-length:".utf8)

    /// The next `Content-Length:` (any case) at or after `start`. When there is none, every
    /// byte that cannot begin one is dropped.
    private mutating func findHeaderMarker() -> Int? {
        let marker = Self.marker
        var index = start
        while index + marker.count <= buffer.count {
            var matches = true
            for offset in 0..<marker.count where Self.lowercased(buffer[index + offset]) != marker[offset] {
                matches = false
                break
            }
            if matches { return index }
            index += 1
        }
        start = max(start, buffer.count - marker.count + 1)
        return nil
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= 65 && byte <= 90 ? byte + 32 : byte
    }

    // MARK: storage

    private mutating func compact() {
        if start > 0, start >= buffer.count / 2 || start > 65536 {
            buffer.removeSubrange(0..<start)
            scanned -= start
            paddedFrom = paddedFrom.map { $0 - start }
            start = 0
        }
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}

extension Substring {
    func trimmingSuffix(_ suffix: Character) -> Substring {
        last == suffix ? dropLast() : self
    }

    func trimmingWhitespace() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
