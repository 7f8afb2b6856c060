import LatchkeyJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Buffers outgoing frames in the peer's framing and writes them with `write(2)`.
public final class FrameWriter {
    public var framing: Framing
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var body: [UInt8] = []
    /// Set once the peer has closed its end; later writes are dropped.
    public private(set) var broken = false

    public init(fd: Int32, framing: Framing = .newlineDelimited) {
        self.fd = fd
        self.framing = framing
        buffer.reserveCapacity(1 << 16)
    }

    /// Appends one message in the current framing.
    public func enqueue(_ message: JSON) {
        switch framing {
        case .newlineDelimited:
            JSONSerializer.serialize(message, into: &buffer)
            buffer.append(UInt8(ascii: "\n"))
        case .contentLength:
            body.removeAll(keepingCapacity: true)
            JSONSerializer.serialize(message, into: &body)
            buffer.append(contentsOf: Array("Content-Length: \(body.count)\r\n\r\n".utf8))
            buffer.append(contentsOf: body)
        }
        if buffer.count >= 1 << 16 { flush() }
    }

    public var hasPending: Bool { !buffer.isEmpty }

    /// Writes everything buffered, retrying partial writes and `EINTR`.
    public func flush() {
        defer { buffer.removeAll(keepingCapacity: true) }
        guard !broken else { return }
        var offset = 0
        buffer.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            while offset < raw.count {
                let written = write(fd, base + offset, raw.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR || errno == EAGAIN {
                    continue
                } else {
                    broken = true
                    return
                }
            }
        }
    }
}
