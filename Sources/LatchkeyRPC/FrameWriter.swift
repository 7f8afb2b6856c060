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
    /// The frames not yet written, and a Content-Length body being serialized.
    ///
    /// Held through pointers rather than as properties: every message appends to them, and an access
    /// to a class's property that spans a call is checked for exclusivity at run time each time.
    private let buffer: UnsafeMutablePointer<[UInt8]>
    private let body: UnsafeMutablePointer<[UInt8]>
    /// Set once the peer has closed its end; later writes are dropped.
    public private(set) var broken = false

    public init(fd: Int32, framing: Framing = .newlineDelimited) {
        self.fd = fd
        self.framing = framing
        buffer = .allocate(capacity: 1)
        buffer.initialize(to: [])
        buffer.pointee.reserveCapacity(1 << 16)
        body = .allocate(capacity: 1)
        body.initialize(to: [])
    }

    deinit {
        buffer.deinitialize(count: 1)
        buffer.deallocate()
        body.deinitialize(count: 1)
        body.deallocate()
    }

    /// Appends one message in the current framing.
    public func enqueue(_ message: JSON) {
        enqueue { JSONSerializer.serialize(message, into: &$0) }
    }

    /// Appends one message in the current framing, which `serialize` writes straight into the
    /// frame (no value need be built for it).
    public func enqueue(serializingWith serialize: (inout [UInt8]) -> Void) {
        switch framing {
        case .newlineDelimited:
            serialize(&buffer.pointee)
            buffer.pointee.append(UInt8(ascii: "\n"))
        case .contentLength:
            body.pointee.removeAll(keepingCapacity: true)
            serialize(&body.pointee)
            buffer.pointee.append(contentsOf: Array("Content-Length: \(body.pointee.count)\r\n\r\n".utf8))
            buffer.pointee.append(contentsOf: body.pointee)
        }
        if buffer.pointee.count >= 1 << 16 { flush() }
    }

    public var hasPending: Bool { !buffer.pointee.isEmpty }

    /// Writes everything buffered, retrying partial writes and `EINTR`.
    public func flush() {
        defer { buffer.pointee.removeAll(keepingCapacity: true) }
        guard !broken else { return }
        var offset = 0
        buffer.pointee.withUnsafeBytes { raw in
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
