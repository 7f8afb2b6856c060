import Testing

@testable import LatchkeyRPC

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

func message(_ text: String) -> FrameEvent { .message(bytes(text)) }

/// A Content-Length frame around `body`.
func frame(_ body: String, separator: String = "\r\n") -> String {
    "Content-Length: \(body.utf8.count)\(separator)\(separator)\(body)"
}

/// Every event the splitter yields for `chunks`, fed one after another, then at end of input.
func events(_ chunks: [[UInt8]], max: Int = 1 << 20, finish: Bool = true) -> [FrameEvent] {
    var splitter = MessageSplitter(maxMessageBytes: max)
    var found: [FrameEvent] = []
    for chunk in chunks {
        splitter.append(chunk)
        while let event = splitter.next() { found.append(event) }
    }
    if finish, let last = splitter.finish() { found.append(last) }
    return found
}

func events(_ text: String, max: Int = 1 << 20, finish: Bool = true) -> [FrameEvent] {
    events([bytes(text)], max: max, finish: finish)
}

/// The same input fed one byte at a time.
func eventsByteByByte(_ input: [UInt8], max: Int = 1 << 20, finish: Bool = true) -> [FrameEvent] {
    events(input.map { [$0] }, max: max, finish: finish)
}

/// The same input fed in chunks of `size` bytes.
func eventsInChunks(_ input: [UInt8], size: Int, max: Int = 1 << 20) -> [FrameEvent] {
    events(stride(from: 0, to: input.count, by: size).map { Array(input[$0..<min($0 + size, input.count)]) }, max: max)
}
