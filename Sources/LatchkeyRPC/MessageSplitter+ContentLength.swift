/// Content-Length framing (the LSP base protocol): headers, a blank line, then the body.
extension MessageSplitter {
    // The reader takes each frame from the next `Content-Length:` header wherever it appears.
    // Bytes before it that are not headers — a line that is no header (an NDJSON line in a
    // framed session), the tail of a body longer than announced — answer one `badHeader`, and
    // the reader resynchronizes on the next marker. A body shorter than announced ends where a
    // header line (`Content-Length:`, digits, a line end) begins inside it: no valid JSON body
    // holds one (a raw line end cannot be in a JSON string, nor a letter outside one), so the
    // short body is handed on as it is (it answers as its bytes parse) and the next frame is read.

    mutating func nextContentLength() -> InPlaceEvent? {
        while true {
            if resyncing {
                guard let found = findHeaderMarker() else { return nil }
                start = found
                resyncing = false
            }
            if let remaining = discarding {
                // An oversized body is dropped as it arrives, up to a header line inside it: a body shorter than announced
                // gives way to the next frame here too.
                switch headerLineInside(start, min(start + remaining, buffer.count)) {
                case .found(let cut):
                    start = cut
                    discarding = nil
                    bodyScanned = nil
                    continue
                case .undecided:
                    let dropped = (bodyScanned ?? start) - start
                    discarding = remaining - dropped
                    start += dropped
                    return nil
                case .none:
                    break
                }
                bodyScanned = nil
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
                let end = start + length
                switch headerLineInside(start, min(end, buffer.count)) {
                case .found(let cut):
                    let body = start..<cut
                    start = cut
                    pendingBody = nil
                    bodyScanned = nil
                    return .message(body)
                case .undecided:
                    return nil
                case .none:
                    guard buffer.count >= end else { return nil }
                }
                let body = start..<end
                start = end
                pendingBody = nil
                bodyScanned = nil
                return .message(body)
            }
            while start < buffer.count, Self.isWhitespace(buffer[start]) { start += 1 }
            guard start < buffer.count else { return nil }
            switch headerBlock() {
            case .incomplete:
                if buffer.count - start > Self.maxHeaderBytes {
                    skipToNextHeader(from: start + 1)
                    return .badHeader
                }
                return nil
            case .bad:
                // Resynchronize from just after the block's first byte: a marker later in the
                // same bytes (after a body's tail, on the next line) starts the next frame.
                skipToNextHeader(from: start + 1)
                return .badHeader
            case .complete(let length, let body):
                start = body
                if length > maxMessageBytes {
                    discarding = length
                    return .tooLarge
                }
                pendingBody = length
            }
        }
    }

    private enum HeaderBlock {
        case incomplete
        /// A line that is no header, a malformed Content-Length, or no Content-Length at all.
        case bad
        /// The Content-Length, and where the body starts.
        case complete(length: Int, body: Int)
    }

    /// The header block at `start`, line by line: a line that is no header is bad as soon as it is whole, without waiting for the block's end.
    ///
    /// It ends at a blank line (`\r\n` or `\n`).
    private func headerBlock() -> HeaderBlock {
        var lineStart = start
        var length: Int?
        while true {
            guard let newline = buffer.firstIndex(of: UInt8(ascii: "\n"), from: lineStart) else { return .incomplete }
            var lineEnd = newline
            if lineEnd > lineStart, buffer[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
            if lineEnd == lineStart {
                guard let length else { return .bad }
                return .complete(length: length, body: newline + 1)
            }
            switch headerLine(lineStart..<lineEnd) {
            case .notHeader: return .bad
            case .other: break
            case .contentLength(let value):
                guard let value else { return .bad }
                length = value
            }
            lineStart = newline + 1
        }
    }

    private enum HeaderLine {
        case notHeader
        case other
        /// A Content-Length line, its value (nil when malformed).
        case contentLength(Int?)
    }

    /// One header line: a token (RFC 9110 `tchar`s), a colon, a value.
    private func headerLine(_ range: Range<Int>) -> HeaderLine {
        guard let colon = buffer[range].firstIndex(of: UInt8(ascii: ":")), colon > range.lowerBound,
            buffer[range.lowerBound..<colon].allSatisfy(Self.isTokenByte)
        else { return .notHeader }
        let name = buffer[range.lowerBound..<colon]
        guard name.count == Self.marker.count - 1, zip(name, Self.marker).allSatisfy({ Self.lowercased($0) == $1 }) else {
            return .other
        }
        var lower = colon + 1
        var upper = range.upperBound
        while lower < upper, buffer[lower] == 0x20 || buffer[lower] == 0x09 { lower += 1 }
        while upper > lower, buffer[upper - 1] == 0x20 || buffer[upper - 1] == 0x09 { upper -= 1 }
        let digits = buffer[lower..<upper]
        guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return .contentLength(nil) }
        return .contentLength(digits.reduce(0) { $0 * 10 + Int($1 - 48) })
    }

    /// RFC 9110 `tchar`: what a header name is made of.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    private enum BodyScan {
        case none
        /// A header line begins here, inside the announced body.
        case found(Int)
        /// Bytes that may begin one end the input: wait for more.
        case undecided
    }

    /// Looks for a header line (`Content-Length:`, digits, a line end) beginning in
    /// `from..<to`, resuming where the last look stopped.
    private mutating func headerLineInside(_ from: Int, _ to: Int) -> BodyScan {
        var index = max(bodyScanned ?? from, from)
        defer { bodyScanned = index }
        while index < to {
            if Self.lowercased(buffer[index]) == Self.marker[0] {
                switch headerLineStarts(at: index) {
                case .none: break
                case .found: return .found(index)
                case .undecided: return .undecided
                }
            }
            index += 1
        }
        return .none
    }

    /// Whether `Content-Length:`, optional blanks, 1 to 18 digits, optional blanks and a line end
    /// (`\r\n` or `\n`) start at `index`, within `maxHeaderBytes`.
    ///
    /// A longer run is no header line, decided once that many bytes are in: what waits undecided, and what each read scans again,
    /// stays bounded (blanks without end after a marker inside a body once kept every byte and scanned them all on every read).
    private func headerLineStarts(at index: Int) -> BodyScan {
        let end = min(buffer.count, index + Self.maxHeaderBytes)
        /// Out of bytes at `end`: more may decide it, unless the line has run to its longest.
        var outOfBytes: BodyScan { end < buffer.count ? .none : .undecided }
        var cursor = index
        for expected in Self.marker {
            guard cursor < end else { return outOfBytes }
            guard Self.lowercased(buffer[cursor]) == expected else { return .none }
            cursor += 1
        }
        while cursor < end, buffer[cursor] == 0x20 || buffer[cursor] == 0x09 { cursor += 1 }
        var digits = 0
        while cursor < end, buffer[cursor] >= 48, buffer[cursor] <= 57 {
            digits += 1
            cursor += 1
            if digits > 18 { return .none }
        }
        guard cursor < end else { return outOfBytes }
        guard digits > 0 else { return .none }
        while cursor < end, buffer[cursor] == 0x20 || buffer[cursor] == 0x09 { cursor += 1 }
        if cursor < end, buffer[cursor] == UInt8(ascii: "\r") { cursor += 1 }
        guard cursor < end else { return outOfBytes }
        return buffer[cursor] == UInt8(ascii: "\n") ? .found(index) : .none
    }

    /// Resynchronizes on the next `Content-Length:` header after a bad block.
    private mutating func skipToNextHeader(from: Int) {
        start = min(max(from, start), buffer.count)
        resyncing = true
    }

    private static let marker = Array("content-length:".utf8)

    /// The next `Content-Length:` (any case) at or after `start`.
    ///
    /// When there is none, every byte that cannot begin one is dropped.
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

    mutating func compact() {
        if start > 0, start >= buffer.count / 2 || start > 65536 {
            buffer.removeSubrange(0..<start)
            scanned -= start
            paddedFrom = paddedFrom.map { $0 - start }
            bodyScanned = bodyScanned.map { $0 - start }
            start = 0
        }
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
